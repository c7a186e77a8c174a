"""The session layer: one live MCP session per server (opened, reconnected, closed), the
transports under it (stdio, streamable HTTP, SSE, in-process), what crosses the wire, and
the event loops calls run on."""
