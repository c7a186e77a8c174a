"""A server listing 20,000 tools (2.5 MB of `tools/list`): building their LangChain tools
never holds the event loop for long, and a call on another server goes on meanwhile."""

from __future__ import annotations

import asyncio
import time

import pytest

from mcpbridge import MCPBridge
from tests.helpers import stdio_config
from tests.security.test_security_schema_bombs import collector_paused
from tests.security.test_security_schemas import LoopWatch, call, text

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

__all__ = ["collector_paused"]  # autouse: the collector's full passes stay out of the measure

COUNT = 20_000


async def test_building_twenty_thousand_tools_never_holds_the_loop() -> None:
    servers = {
        "many": stdio_config(
            "tests.security.costly_servers", args=["-m", "tests.security.costly_servers", "many", str(COUNT)]
        ),
        "basic": stdio_config(),
    }
    async with MCPBridge(servers, plugins=[], timeout=60) as bridge:
        # Connect (opening a session lists its tools) and let the SDK parse the listing first:
        # that part is one call into pydantic-core; what is measured here is what the bridge adds.
        await asyncio.gather(bridge.session("many"), bridge.list_tools(servers=["basic"]))
        (echo,) = [tool for tool in await bridge.list_tools(servers=["basic"]) if tool.name == "echo"]
        waits: list[float] = []

        async def bystander() -> None:
            await asyncio.sleep(0.01)
            for index in range(3):
                started = time.perf_counter()
                message = await echo.ainvoke(call("echo", {"text": f"bystander {index}"}, id=f"b{index}"))
                waits.append(time.perf_counter() - started)
                assert text(message) == f"bystander {index}"

        async with LoopWatch() as watch:
            started = time.perf_counter()
            tools, _ = await asyncio.gather(bridge.list_tools(servers=["many"]), bystander())
            took = time.perf_counter() - started
        again = time.perf_counter()
        assert len(await bridge.list_tools(servers=["many"])) == COUNT  # already built: reused
        relisted = time.perf_counter() - again
    assert len(tools) == COUNT
    assert tools[-1].name == f"tool_{COUNT - 1:05d}"
    print(
        f"built {COUNT} tools in {took:.2f} s ({took / COUNT * 1e6:.0f} us each), listed again in {relisted:.2f} s; "
        f"worst loop block {watch.worst * 1000:.0f} ms; bystander calls {[round(w, 3) for w in waits]} s"
    )
    assert watch.worst < 0.2, f"building held the loop {watch.worst * 1000:.0f} ms"
    assert max(waits) < 1.0, waits
