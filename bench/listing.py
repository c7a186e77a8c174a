"""Building LangChain tools from a `tools/list` of 1, 1,000 and 20,000 small tools (a stdio
server): the raw mcp SDK's `list_tools` on the bridge's session vs what the bridge adds to
build the tools, per tool, and the longest the event loop waited meanwhile, with the longest
pause of Python's garbage collector in that time (a full pass over a large heap blocks every
thread, whatever code runs), and the collector's share of the build: all its passes in that
time, and the µs per tool that are the bridge's own (the build without them). At 20,000 tools
most of the difference from 1,000 is the collector's: the new objects trigger full passes,
each over the whole heap (imports included). `--freeze` calls `gc.freeze()` after start-up,
as a long-running service may, which keeps the start-up heap out of those passes.
Target: the bridge's own longest loop block (measured again with the collector off) ≤ 50 ms."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import time
from typing import Any

from _common import stdio_config

from mcpbridge import MCPBridge

logging.disable(logging.INFO)
COUNTS = [1, 1000, 20_000]
TARGET_BLOCK_S = 0.05
MODULE = "tests.security.costly_servers"


async def _worst_gap(stop: asyncio.Event, worst: list[float]) -> None:
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        worst[0] = max(worst[0], now - last - 0.001)
        last = now


class _CollectorPauses:
    """The longest garbage-collector pause, and all of them, while it is installed."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.total = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            pause = time.perf_counter() - self._started
            self.longest = max(self.longest, pause)
            self.total += pause


async def measure(count: int, *, collector: bool, freeze: bool = False) -> tuple[float, float, float, float, float]:
    """Seconds of the raw listing, of building on top of it, the worst loop block, the
    longest collector pause and all of them while building (with the collector off when not
    `collector`; with the start-up heap frozen when `freeze`)."""
    server: dict[str, Any] = stdio_config(MODULE, args=["-m", MODULE, "many", str(count)])
    async with MCPBridge({"many": server}, plugins=[], timeout=120) as bridge:
        connection = bridge._connections["many"]
        await connection.list_tools()  # connect
        started = time.perf_counter()
        await connection.list_tools(refresh=True)
        raw = time.perf_counter() - started
        gc.collect()
        if freeze:
            gc.freeze()
        stop, worst, pauses = asyncio.Event(), [0.0], _CollectorPauses()
        ticker = asyncio.create_task(_worst_gap(stop, worst))
        await asyncio.sleep(0.005)
        gc.callbacks.append(pauses)
        if not collector:
            gc.disable()
        started = time.perf_counter()
        tools = await bridge.list_tools()
        built = time.perf_counter() - started
        stop.set()
        await ticker  # before the collector is back: its first pass is not the bridge's block
        gc.enable()
        gc.callbacks.remove(pauses)
        gc.unfreeze()
        assert len(tools) == count
    return raw, built, worst[0], pauses.longest, pauses.total


async def main(counts: list[int], freeze: bool) -> int:
    print(
        f"{'tools':>8}{'raw SDK ms':>12}{'build ms':>10}{'µs/tool':>9}{'gc ms':>8}{'own µs/tool':>13}"
        f"{'worst block ms':>16}{'gc pause ms':>13}{'gc off: worst ms':>18}"
    )
    own = []
    for count in counts:
        raw, built, worst, pause, collecting = await measure(count, collector=True, freeze=freeze)
        alone = (await measure(count, collector=False, freeze=freeze))[2]
        own.append(alone)
        print(
            f"{count:>8}{raw * 1e3:>12.1f}{built * 1e3:>10.1f}{built / count * 1e6:>9.1f}{collecting * 1e3:>8.1f}"
            f"{(built - collecting) / count * 1e6:>13.1f}{worst * 1e3:>16.1f}{pause * 1e3:>13.1f}{alone * 1e3:>18.1f}"
        )
    print(f"worst loop block of the bridge's own: {max(own) * 1e3:.0f} ms (target ≤ {TARGET_BLOCK_S * 1e3:.0f} ms)")
    return 0 if max(own) <= TARGET_BLOCK_S else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counts", type=int, nargs="+", default=COUNTS)
    parser.add_argument("--freeze", action="store_true", help="gc.freeze() after start-up (see above)")
    arguments = parser.parse_args()
    raise SystemExit(asyncio.run(main(arguments.counts, arguments.freeze)))
