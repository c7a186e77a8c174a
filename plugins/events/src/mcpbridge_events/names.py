"""Names other code reads, in a module of their own so that the package can give them
without importing its interceptor (mcp, LangChain)."""

from __future__ import annotations

EVENT_TYPE = "mcpbridge.tool_call"
"""The `type` of every event this plugin writes to the custom stream."""
