"""A span keeps a server's texts cut: the otel plugin recorded each observer event (a server's
log message, a progress message) on the call's span with its text whole, and a span keeps up
to 128 events: 1 MB log lines held 128 MB in one span. Log data of a million numbers was
checked item by item and written whole for each call that heard it (5.5 s of held event loop
when every call in flight heard it); now only the call it came with does, and only its start
is written."""

from __future__ import annotations

import asyncio

import mcpbridge_otel
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcpbridge_otel.attributes import TEXT_LIMIT

from mcpbridge import MCPBridge
from tests.helpers.telemetry import Telemetry, telemetry, telemetry_session
from tests.security.test_security_schemas import LoopWatch

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

__all__ = ["telemetry", "telemetry_session"]

LINE = 100_000


def build() -> MCPServer:
    server = MCPServer("noisy")

    @server.tool(description="d" * LINE)
    async def noisy(ctx: Context) -> str:
        """Logs 150 long lines and reports progress with a long message."""
        await ctx.report_progress(1, 2, message="p" * LINE)
        for i in range(150):
            await ctx.log("info", f"{i} " + "x" * LINE)
        return "done"

    @server.tool()
    async def numbers(ctx: Context) -> str:
        """One log message whose data is a million numbers."""
        await asyncio.sleep(0.3)
        await ctx.log("info", list(range(1_000_000)))
        return "done"

    @server.tool()
    async def bystander() -> str:
        """Another caller's call, in flight meanwhile."""
        await asyncio.sleep(0.5)
        return "ok"

    return server


async def test_server_texts_on_spans_are_cut(telemetry: Telemetry) -> None:
    names = ("noisy", "bystander")
    async with MCPBridge({"n": {"server": build(), "mode": "legacy"}}, plugins=[mcpbridge_otel]) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        calls = [tools[name].ainvoke({"type": "tool_call", "name": name, "args": {}, "id": name}) for name in names]
        await asyncio.gather(*calls)
    spans = [span for span in telemetry.spans() if span.name.startswith("execute_tool")]
    assert len(spans) == 2
    for span in spans:
        texts = [value for value in span.attributes.values() if isinstance(value, str)]
        texts += [value for event in span.events for value in event.attributes.values() if isinstance(value, str)]
        assert max(map(len, texts)) <= TEXT_LIMIT + 1
        held = sum(map(len, texts))
        assert held < 1_000_000, f"span {span.name!r} holds {held:,} characters of server text"


async def test_huge_log_data_costs_no_call_in_flight_its_size(telemetry: Telemetry) -> None:
    async with MCPBridge({"n": {"server": build(), "mode": "legacy"}}, plugins=[mcpbridge_otel]) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        calls = [
            tools[name].ainvoke({"type": "tool_call", "name": name, "args": {}, "id": f"{name}{i}"})
            for i, name in enumerate(["numbers"] + ["bystander"] * 8)
        ]
        async with LoopWatch() as watch:
            await asyncio.gather(*calls)
    assert watch.worst < 1.0, f"the event loop was held {watch.worst:.2f} s by one log notification"
    logged = [event for span in telemetry.spans() for event in span.events if event.name == "log"]
    assert len(logged) == 1  # only the call it came with heard it
    assert all(str(event.attributes["data"]).startswith("[0, 1, 2, ") for event in logged)
