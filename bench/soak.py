"""A bounded soak: steady concurrent tool calls through one MCPBridge (one session) to an echo
MCP server in its own process on loopback, for `--seconds` (default 600).

Every `--interval` seconds the load pauses until no call is in flight, garbage is collected,
and this process's RSS, open file descriptors (/proc/self/fd) and asyncio tasks are sampled.
After the warm-up (the first `--warmup` share of the run) nothing may grow: the last sample
may exceed the first after warm-up by at most the tolerance, and neither may the least-squares
slope over the second half, projected over that half. Exits 1 when something grew.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import logging
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from _load import loopback_server, open_fds, rss_bytes, task_count

from mcpbridge import MCPBridge, MCPTool

logging.disable(logging.INFO)
MB = 1024 * 1024
TOLERANCE = {"rss_mb": 4.0, "fds": 4.0, "tasks": 2.0}
"""How much each figure may grow after warm-up (RSS in MB; descriptors and tasks as counts)."""


@dataclass
class Sample:
    at: float
    calls: int
    rss_mb: float
    fds: float
    tasks: float


class Load:
    """`concurrency` loops calling the tool at `rate` calls/s in all, pausable between calls."""

    def __init__(self, tool: MCPTool, concurrency: int, rate: float) -> None:
        self.tool = tool
        self.period = concurrency / rate
        self.running = asyncio.Event()
        self.running.set()
        self.in_flight = 0
        self.idle = asyncio.Event()
        self.calls = 0
        self.errors = 0
        self._ids = itertools.count()

    async def loop(self) -> None:
        next_at = time.monotonic()
        while True:
            await self.running.wait()
            self.in_flight += 1
            self.idle.clear()
            i = next(self._ids)
            try:
                call = {"type": "tool_call", "name": self.tool.name, "args": {"text": f"soak-{i}"}, "id": f"s{i}"}
                message = await self.tool.ainvoke(call)
                self.calls += 1
                self.errors += message.status != "success"
            finally:
                self.in_flight -= 1
                if self.in_flight == 0:
                    self.idle.set()
            next_at = max(next_at + self.period, time.monotonic() - self.period)
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    async def quiesced_sample(self, started: float) -> Sample:
        self.running.clear()
        if self.in_flight:
            await self.idle.wait()
        gc.collect()
        sample = Sample(time.monotonic() - started, self.calls, rss_bytes() / MB, open_fds(), task_count())
        self.running.set()
        return sample


def slope(points: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of (x, y) points."""
    xs = [x for x, _ in points]
    mean_x = statistics.fmean(xs)
    mean_y = statistics.fmean(y for _, y in points)
    spread = sum((x - mean_x) ** 2 for x in xs)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0


def verdict(samples: list[Sample], warmup: float, window: int) -> list[tuple[str, float, float, float, bool]]:
    """Per figure: (name, growth last vs warm-up, growth along the second half's slope, tolerance, ok).
    Each figure is first smoothed to its maximum over `window` samples: the HTTP client keeps
    a varying number of idle keep-alive connections (at most 20), a leak only ever adds."""
    end = samples[-1].at
    rows = []
    for name, tolerance in TOLERANCE.items():
        values = [getattr(s, name) for s in samples]
        peaks = [(s.at, max(values[max(0, i - window + 1) : i + 1])) for i, s in enumerate(samples)]
        after = [(at, v) for at, v in peaks if at >= end * warmup]
        second_half = [(at, v) for at, v in peaks if at >= end / 2]
        growth = after[-1][1] - after[0][1]
        trend = slope(second_half) * (second_half[-1][0] - second_half[0][0])
        rows.append((name, growth, trend, tolerance, growth <= tolerance and trend <= tolerance))
    return rows


async def soak(url: str, seconds: float, interval: float, concurrency: int, rate: float) -> list[Sample]:
    async with MCPBridge({"echo": {"url": url}}, plugins=[]) as bridge:
        [tool] = await bridge.list_tools()
        load = Load(tool, concurrency, rate)
        started = time.monotonic()
        loops = [asyncio.create_task(load.loop()) for _ in range(concurrency)]
        samples = [await load.quiesced_sample(started)]
        print(f"{'s':>6}{'calls':>9}{'calls/s':>9}{'RSS MB':>9}{'fds':>6}{'tasks':>7}")
        while samples[-1].at < seconds:
            await asyncio.sleep(interval)
            samples.append(await load.quiesced_sample(started))
            last, before = samples[-1], samples[-2]
            rate_now = (last.calls - before.calls) / (last.at - before.at)
            print(f"{last.at:6.0f}{last.calls:9d}{rate_now:9.0f}{last.rss_mb:9.1f}{last.fds:6.0f}{last.tasks:7.0f}")
        for task in loops:
            task.cancel()
        crashed = [o for o in await asyncio.gather(*loops, return_exceptions=True) if isinstance(o, Exception)]
        if load.errors or crashed:
            raise SystemExit(f"bench/soak.py: {load.errors} of {load.calls} calls failed; loops crashed: {crashed!r}")
        return samples


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--concurrency", type=int, default=20, help="calls in flight at once")
    parser.add_argument("--rate", type=float, default=100.0, help="calls per second in all")
    parser.add_argument("--warmup", type=float, default=0.2, help="share of the run before growth counts")
    parser.add_argument("--window", type=int, default=6, help="samples each figure's peak is taken over")
    args: Any = parser.parse_args(argv)
    with loopback_server() as served:
        samples = asyncio.run(soak(served.url, args.seconds, args.interval, args.concurrency, args.rate))
    calls = samples[-1].calls
    print(f"{calls} calls in {samples[-1].at:.0f} s ({calls / samples[-1].at:.0f}/s), {len(samples)} samples")
    failed = False
    print(f"{'figure':<8}{'last - warm-up':>16}{'2nd-half trend':>16}{'tolerance':>11}")
    for name, growth, trend, tolerance, ok in verdict(samples, args.warmup, args.window):
        failed |= not ok
        print(f"{name:<8}{growth:>16.2f}{trend:>16.2f}{tolerance:>11g}  {'ok' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
