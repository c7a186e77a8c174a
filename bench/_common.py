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
) -> tuple[float, float]:
    """Median seconds of `first` and `second`, alternating call by call after a warm-up so
    that drift on a busy machine hits both equally."""
    for _ in range(warmup):
        await first()
        await second()
    a: list[float] = []
    b: list[float] = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        await first()
        t1 = time.perf_counter()
        await second()
        t2 = time.perf_counter()
        a.append(t1 - t0)
        b.append(t2 - t1)
    return statistics.median(a), statistics.median(b)
