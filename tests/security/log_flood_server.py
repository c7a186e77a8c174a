"""An MCP server whose tool floods the call with log notifications: `flood(count, big_bytes)`
sends `count` short log lines and, when `big_bytes` > 0, one line of that many bytes just
before the last two; `echo` answers at once (a bystander). Run `python -m tests.security.log_flood_server`
for stdio."""

from __future__ import annotations

import warnings

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning


def build() -> MCPServer:
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)  # MCP logging is deprecated, still served
    server = MCPServer("flood")

    @server.tool()
    async def flood(count: int, big_bytes: int = 0, ctx: Context | None = None) -> str:
        """Send `count` log lines (and one of `big_bytes` bytes before the last two), then answer."""
        assert ctx is not None
        for line in range(count):
            if big_bytes and line == count - 2:
                await ctx.info("B" * big_bytes)
            await ctx.info(f"line {line}")
        return f"sent {count} log lines"

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    return server


if __name__ == "__main__":
    build().run("stdio")
