"""An MCP server whose tools push requests to the client mid-call (`ctx.elicit`, sampling),
as most servers written before the 2026-07-28 protocol do, in the two ways servers report a
refusal: `ask` and `sample` let the SDK's error through (a JSON-RPC error, as mcp 2.x
servers do), `ask_or_fail` reports it as a tool error (as FastMCP does).

Run as `python -m tests.servers.pushing` for stdio."""

from __future__ import annotations

from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import SamplingMessage, TextContent
from pydantic import BaseModel


class Sure(BaseModel):
    sure: bool


def build() -> MCPServer:
    server = MCPServer("pushing")

    @server.tool()
    async def ask(ctx: Context) -> str:
        """Ask the user to confirm, then answer with what they did."""
        reply = await ctx.elicit("Really?", Sure)
        return f"the user chose {reply.action}"

    @server.tool()
    async def ask_or_fail(ctx: Context) -> str:
        """Ask; a refusal is this tool's error."""
        try:
            reply = await ctx.elicit("Really?", Sure)
        except MCPError as exc:
            raise ToolError(exc.error.message) from None
        return f"the user chose {reply.action}"

    @server.tool()
    async def ask_times(times: int, ctx: Context) -> str:
        """Ask `times` times; say how many were answered, and why the next one was not."""
        for answered in range(times):
            try:
                await ctx.elicit("Once more?", Sure)
            except MCPError as exc:
                return f"answered {answered}; then refused: {exc.error.message}"
        return f"answered {times}"

    @server.tool()
    async def sample(ctx: Context) -> str:
        """Ask the client's model."""
        message = SamplingMessage(role="user", content=TextContent(type="text", text="hi"))
        await ctx.session.create_message(messages=[message], max_tokens=5)
        return "sampled"

    return server


if __name__ == "__main__":
    build().run()
