"""A file-store MCP server whose calls are logged, so tests can count what really ran."""

from __future__ import annotations

import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

CALLS: list[tuple[str, dict[str, Any]]] = []
"""Every call any `build()` server ran, in order (servers in this process only)."""


def build() -> MCPServer:
    server = MCPServer("files")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def read_file(path: str) -> str:
        """Read a file."""
        CALLS.append(("read_file", {"path": path}))
        return f"contents of {path}"

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def delete_file(path: str) -> str:
        """Delete a file for good."""
        CALLS.append(("delete_file", {"path": path}))
        return f"deleted {path}"

    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False))
    def transfer(amount: float, to: str) -> str:
        """Move money (additive: not destructive)."""
        CALLS.append(("transfer", {"amount": amount, "to": to}))
        return f"sent {amount} to {to}"

    @server.tool()
    def touch(path: str) -> str:
        """Create an empty file (no annotations)."""
        CALLS.append(("touch", {"path": path}))
        return f"touched {path}"

    return server


def ran(tool: str) -> list[dict[str, Any]]:
    """The arguments of every call of `tool` so far."""
    return [args for name, args in CALLS if name == tool]


if __name__ == "__main__":
    build().run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
