"""`mcp.server.fastmcp` for the upstream suite: FastMCP 1.x's constructor on mcp 2.x's
`MCPServer`. FastMCP 1.x took its HTTP settings (`host`, `port`, ...) in the constructor;
the suite serves `streamable_http_app()` with uvicorn on a port of its own, so they are kept
and otherwise unused."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

__all__ = ["Context", "FastMCP"]


class FastMCP(MCPServer):
    def __init__(self, name: str | None = None, instructions: str | None = None, **settings: Any) -> None:
        super().__init__(name or "FastMCP", instructions=instructions)
        self.v1_settings = settings
