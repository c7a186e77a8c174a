"""One log notification with large structured data cannot stall the event loop through the
events plugin: the plugin made the data JSON-friendly item by item, then encoded it whole,
before cutting it to `max_text_bytes` (a list of a million numbers cost 1.6 s, once for every
call that heard it). Now only the start that is kept is encoded, and only the call the
message came with hears it, not the others in flight on the session."""

from __future__ import annotations

import asyncio
from typing import Any

import mcpbridge_events
import pytest
from langchain.tools import ToolRuntime
from mcp.server.mcpserver import Context, MCPServer

from mcpbridge import MCPBridge
from tests.security.test_security_schemas import LoopWatch

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

IN_FLIGHT = 8


def build() -> MCPServer:
    server = MCPServer("noisy")

    @server.tool()
    async def noisy(ctx: Context) -> str:
        """One log message whose data is a million numbers."""
        await asyncio.sleep(0.3)
        await ctx.log("info", {"rows": list(range(1_000_000))})
        return "done"

    @server.tool()
    async def slow() -> str:
        """Another caller's call, in flight meanwhile."""
        await asyncio.sleep(1.0)
        return "ok"

    return server


async def test_huge_log_data_is_cut_without_walking_it() -> None:
    written: list[dict[str, Any]] = []

    async with MCPBridge({"n": {"server": build(), "mode": "legacy"}}, plugins=[mcpbridge_events]) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}

        async def call(name: str, i: int) -> Any:
            runtime = ToolRuntime(
                state={}, context=None, config={}, stream_writer=written.append, tool_call_id=f"{name}{i}", store=None
            )
            return await tools[name].ainvoke(
                {"type": "tool_call", "name": name, "args": {"runtime": runtime}, "id": f"{name}{i}"}
            )

        async with LoopWatch() as watch:
            await asyncio.gather(call("noisy", 0), *(call("slow", i) for i in range(IN_FLIGHT)))
    assert watch.worst < 1.0, f"the event loop was held {watch.worst:.2f} s by one log notification"
    logs = [event for event in written if event["event"] == "update" and event["update"] == "log"]
    assert [event["tool_call_id"] for event in logs] == ["noisy0"]  # only the call it came with heard it
    for event in logs:
        data = event["data"]["data"]
        assert data.startswith('{"rows": [0, 1, 2, ')
        assert data.endswith(" bytes cut]")
        assert len(data.encode()) <= 4096
