"""Why the bridge's overhead per call is larger over stdio and HTTP than in-process, on some
machines: the same calls, in-process, to a tool that answers at once and to one that waits
(`slow`, an `asyncio.sleep` in the server) before answering. The waiting costs no CPU, yet on
a machine whose CPU slows down while it idles (a virtual machine's vCPU leaving its caches
and clock behind while halted), the work after each wait, the raw SDK's and the bridge's
alike, costs several times its CPU time: that is what a stdio or HTTP call, which waits for
the server, pays too. Prints client CPU per call (this process; the server runs in it) of the
raw call and the bridge's CPU beyond it, for each wait. No target: it explains the others."""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from typing import Any

from _common import basic, tool_call

from mcpbridge import MCPBridge

logging.disable(logging.INFO)


async def cpu_per_call(seconds: float, rounds: int) -> tuple[float, float]:
    """CPU seconds per raw call, and per bridge call beyond it, alternating in blocks of 100."""
    async with MCPBridge({"b": {"server": basic.build()}}, plugins=[]) as bridge:
        slow = {tool.name: tool for tool in await bridge.list_tools()}["slow"]
        session = await bridge.session("b")
        call = tool_call("slow", {"seconds": seconds})

        async def through_bridge() -> Any:
            return await slow.ainvoke(call)

        async def raw() -> Any:
            return await session.call_tool("slow", {"seconds": seconds}, allow_input_required=True)

        spent = {through_bridge: 0.0, raw: 0.0}
        for _ in range(50):
            await through_bridge()
            await raw()
        for _ in range(rounds // 100):
            for each in spent:
                started = time.process_time()
                for _ in range(100):
                    await each()
                spent[each] += time.process_time() - started
        calls = rounds // 100 * 100
        return spent[raw] / calls, (spent[through_bridge] - spent[raw]) / calls


async def main(rounds: int) -> int:
    print(f"{'server waits ms':>16}{'raw cpu µs':>12}{'bridge cpu over µs':>20}")
    for seconds in (0.0, 0.001, 0.003):
        raw, over = await cpu_per_call(seconds, rounds)
        print(f"{seconds * 1e3:>16.0f}{raw * 1e6:>12.0f}{over * 1e6:>20.0f}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=1000)
    raise SystemExit(asyncio.run(main(parser.parse_args().rounds)))
