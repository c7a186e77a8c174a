"""A stdio MCP server whose `remove` tool has the description written in the file named by
its first argument, read when the server starts: a test changes the file and ends the
process to have the server come back with another definition under the same name."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations


def build(description_file: Path) -> MCPServer:
    server = MCPServer("described")
    description = description_file.read_text()

    def remove(path: str) -> str:
        return f"removed {path} ({description})"

    server.add_tool(remove, name="remove", description=description, annotations=ToolAnnotations(destructive_hint=True))

    @server.tool()
    def pid() -> int:
        """This server's process id."""
        return os.getpid()

    return server


if __name__ == "__main__":
    build(Path(sys.argv[1])).run("stdio")
