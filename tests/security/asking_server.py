"""A legacy-protocol server that two users share, whose `ask` tool asks the client's model
(or, with `person`, the user) mid-call, on the call's own stream (`related_request_id`, as
`ctx.elicit` and `Resolve(Sample)` do). A call reports progress when it has arrived, so a
test can start another caller's then, and waits until another caller's call has done its
asking (`after`): Bob's start, Alice's questions and Bob's questions in that order, without
sleeping. A wait that never ends fails the call after `WAIT_S` instead of hanging.
`python -m tests.security.asking_server` serves it over stdio."""

from __future__ import annotations

import asyncio
from collections import defaultdict

from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import SamplingMessage, TextContent
from pydantic import BaseModel

WAIT_S = 20.0
"""How long a call waits for another caller's."""


class Sure(BaseModel):
    sure: bool


def build() -> MCPServer:
    server = MCPServer("asking")
    done: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)

    @server.tool()
    async def ask(who: str, times: int, ctx: Context, after: str = "", person: bool = False) -> str:
        """Say it arrived; once `after`'s call has asked, ask `times` times; say which
        questions were answered and which refused."""
        await ctx.report_progress(0, None, f"{who} arrived")
        if after:
            try:
                await asyncio.wait_for(done[after].wait(), WAIT_S)
            except TimeoutError:
                raise ToolError(f"{after} never asked") from None
        outcomes = []
        for _ in range(times):
            try:
                if person:
                    await ctx.elicit(f"once more for {who}?", Sure)
                else:
                    message = SamplingMessage(role="user", content=TextContent(text=f"an idea for {who}?"))
                    await ctx.session.create_message(
                        messages=[message], max_tokens=5, related_request_id=ctx.request_id
                    )
                outcomes.append("answered")
            except MCPError:
                outcomes.append("refused")
        done[who].set()
        return f"{who}: {', '.join(outcomes) or 'nothing asked'}"

    return server


if __name__ == "__main__":
    build().run()
