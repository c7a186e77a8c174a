"""Streamable-HTTP MCP servers that record every HTTP request's identity headers (the
fixtures that start two of them are in tests/plugins/headers/conftest.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer

WATCHED = ("x-user-id", "x-tenant", "x-account", "x-static", "authorization", "x-provided")


@dataclass
class RecordingServer:
    """An HTTP MCP server, the watched headers of every HTTP request it got, and its tool calls."""

    url: str
    requests: list[dict[str, str]] = field(default_factory=list)
    tool_calls: int = 0

    def reset(self) -> None:
        self.requests.clear()
        self.tool_calls = 0


def build(record: RecordingServer) -> MCPServer:
    server = MCPServer("crm")

    @server.tool()
    async def whoami(ctx: Context) -> str:
        """The caller's x-user-id header."""
        record.tool_calls += 1
        await anyio.sleep(0.005)  # keep concurrent calls in flight together
        return str((ctx.headers or {}).get("x-user-id", "anonymous"))

    @server.tool()
    def headers_seen(ctx: Context) -> str:
        """The watched headers of this call, as JSON."""
        record.tool_calls += 1
        headers = ctx.headers or {}
        return json.dumps({name: headers[name] for name in WATCHED if name in headers}, sort_keys=True)

    return server


def recording_app(record: RecordingServer, app: Any) -> Any:
    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers: dict[str, str] = {}
            for key, value in scope["headers"]:  # a header sent twice shows as "first, second"
                name = key.decode().lower()
                headers[name] = f"{headers[name]}, {value.decode()}" if name in headers else value.decode()
            record.requests.append({name: headers[name] for name in WATCHED if name in headers})
        await app(scope, receive, send)

    return asgi
