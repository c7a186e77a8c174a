"""The example's MCP server: a small notes service over streamable HTTP (mcp 2.x).

`python server.py [PORT]` serves it on http://127.0.0.1:PORT/mcp (default 8000). `CALLS`
counts the tool calls it ran, so a test in the same process can check that a call ran once,
or not at all. `open_archive` adds a tool while the server runs and tells its clients, as a
server whose tools change does: running agents are given it at their next model call.
"""

from __future__ import annotations

import sys
from collections import Counter

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

CALLS: Counter[str] = Counter()
NOTES: dict[str, str] = {}


def build() -> MCPServer:
    """A fresh server with three notes; read-only tools say so, `delete_note` is destructive."""
    server = MCPServer("notes")
    NOTES.clear()
    NOTES.update({"groceries": "eggs, milk", "ideas": "a bridge for MCP tools", "todo": "water the plants"})

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def list_notes() -> list[str]:
        """The titles of every note."""
        CALLS["list_notes"] += 1
        return sorted(NOTES)

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def read_note(title: str) -> str:
        """The text of one note."""
        CALLS["read_note"] += 1
        if title not in NOTES:
            raise ToolError(f"no note called {title!r}")
        return NOTES[title]

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def delete_note(title: str) -> str:
        """Delete a note for good."""
        CALLS["delete_note"] += 1
        if NOTES.pop(title, None) is None:
            raise ToolError(f"no note called {title!r}")
        return f"deleted {title}"

    @server.tool()
    async def open_archive(ctx: Context) -> str:
        """Add the `archive_note` tool, and tell the clients that the tools changed."""
        CALLS["open_archive"] += 1
        if "archive_note" not in {tool.name for tool in await server.list_tools()}:

            @server.tool()
            def archive_note(title: str) -> str:
                """Move a note to the archive."""
                CALLS["archive_note"] += 1
                if NOTES.pop(title, None) is None:
                    raise ToolError(f"no note called {title!r}")
                return f"archived {title}"

        if ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await ctx.notify_tools_changed()  # on the clients' subscriptions/listen streams
        else:
            await ctx.session.send_tool_list_changed()
        return "the archive is open: archive_note moves a note there"

    return server


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(build().streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 8000)
