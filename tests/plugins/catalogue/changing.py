"""A server whose tools change while an agent runs: `add` adds `grown`, `remove` removes
`echo`, `change` gives `echo` another description; each announces the change the way the
session's protocol does (`subscriptions/listen` on 2026-07-28, `tools/list_changed` before).
`python -m tests.plugins.catalogue.changing` serves it over stdio. `many(n)` is a server
of `n` tools with distinct descriptions, one of them `wire_money`, for the budget."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer
from mcp_types.version import MODERN_PROTOCOL_VERSIONS


async def _announce(ctx: Context) -> None:
    if ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS:
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()


def echo(text: str) -> str:
    """Repeat the text."""
    return text


def build() -> MCPServer:
    server = MCPServer("changing")
    server.add_tool(echo)

    @server.tool()
    async def add(ctx: Context) -> str:
        """Add the tool `grown`."""

        def grown() -> str:
            """A tool added while the agent runs."""
            return "grown ran"

        server.add_tool(grown)
        await _announce(ctx)
        return "added"

    @server.tool()
    async def remove(ctx: Context) -> str:
        """Remove the tool `echo`."""
        server.remove_tool("echo")
        await _announce(ctx)
        return "removed"

    @server.tool()
    async def change(ctx: Context) -> str:
        """Give `echo` another description."""
        server.remove_tool("echo")
        server.add_tool(echo, description="Repeat the text, now louder.")
        await _announce(ctx)
        return "changed"

    return server


TOPICS = ("invoice", "calendar", "weather", "ticket", "repository", "playlist", "recipe", "flight", "parcel", "garden")


def many(n: int) -> MCPServer:
    """`n` tools (`tool_000`...) on ten topics, and `wire_money`, the one a search must find."""
    server = MCPServer("many")
    for i in range(n - 1):
        topic = TOPICS[i % len(TOPICS)]

        def tool(note: str) -> str:
            return note

        server.add_tool(tool, name=f"tool_{i:03d}", description=f"Look up the {topic} record number {i}.")

    def wire_money(account: str, amount: int) -> str:
        """Send a bank transfer (wire money) to an account."""
        return f"sent {amount} to {account}"

    server.add_tool(wire_money)
    return server


if __name__ == "__main__":
    build().run()
