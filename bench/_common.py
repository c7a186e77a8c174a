"""Shared bench helpers: the sample servers and paired timing against the raw mcp SDK."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcpbridge.testing import serve_http  # noqa: E402
from tests.helpers import stdio_config  # noqa: E402
from tests.servers import basic  # noqa: E402

__all__ = ["ROOT", "basic", "paired_medians", "serve_http", "stdio_config", "tool_call"]


def tool_call(name: str, args: dict[str, Any], i: int = 0) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args, "id": f"bench-{i}"}


async def paired_medians(
    first: Callable[[], Awaitable[Any]], second: Callable[[], Awaitable[Any]], *, rounds: int, warmup: int = 50
) -> tuple[float, float, float, float]:
    """Median seconds of `first` and `second`, alternating call by call after a warm-up so
    that drift on a busy machine hits both equally: wall time, then this process's CPU time
    (user and system, every thread of it)."""
    for _ in range(warmup):
        await first()
        await second()
    walls: tuple[list[float], list[float]] = ([], [])
    cpus: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for call, wall, cpu in ((first, walls[0], cpus[0]), (second, walls[1], cpus[1])):
            started, used = time.perf_counter(), time.process_time()
            await call()
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - used)
    median = statistics.median
    return median(walls[0]), median(walls[1]), median(cpus[0]), median(cpus[1])
