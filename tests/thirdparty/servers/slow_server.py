"""A stdio MCP server (mcp 2.x `MCPServer`) whose `wait` tool reports progress once a second
until cancelled, and writes "cancelled" to the file named by its first argument when the
client cancels it (`notifications/cancelled`): what `mcpbridge call` does on Ctrl-C."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("slow")
MARK = Path(sys.argv[1])


@server.tool()
async def wait(seconds: int, ctx: Context) -> str:
    """Waits `seconds`, reporting progress each second."""
    try:
        for second in range(seconds):
            await ctx.report_progress(second + 1, seconds, f"second {second + 1}")
            await asyncio.sleep(1)
    except asyncio.CancelledError:
        MARK.write_text("cancelled")  # noqa: ASYNC240 - done before the cancelled task ends
        raise
    return "waited"


if __name__ == "__main__":
    server.run("stdio")
