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

__all__ = ["ROOT", "basic", "echo_on", "hand_written_echo", "paired_medians", "serve_http", "stdio_config", "tool_call"]


async def echo_on(session: Any, text: str = "hello") -> Any:
    """The raw call every bench measures against: `echo` on an mcp `ClientSession`."""
    return await session.call_tool("echo", {"text": text}, allow_input_required=True)


def hand_written_echo(session: Any) -> Any:
    """`echo` as a LangChain tool written by hand, without the bridge: a `StructuredTool`
    calling `session.call_tool`."""
    from langchain_core.tools import StructuredTool

    async def echo(text: str) -> str:
        """Echo the text back."""
        result = await echo_on(session, text)
        return str(result.content[0].text)

    return StructuredTool.from_function(coroutine=echo, name="echo")


def tool_call(name: str, args: dict[str, Any], i: int = 0) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args, "id": f"bench-{i}"}


async def paired_medians(
    *calls: Callable[[], Awaitable[Any]], rounds: int, warmup: int = 50
) -> tuple[list[float], list[float]]:
    """Median seconds of each of `calls`, taking turns call by call after a warm-up so that
    drift on a busy machine hits all alike: wall times, then this process's CPU times (user
    and system, every thread of it), in the order of `calls`."""
    for _ in range(warmup):
        for call in calls:
            await call()
    walls: list[list[float]] = [[] for _ in calls]
    cpus: list[list[float]] = [[] for _ in calls]
    for _ in range(rounds):
        for call, wall, cpu in zip(calls, walls, cpus, strict=True):
            started, used = time.perf_counter(), time.process_time()
            await call()
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - used)
    median = statistics.median
    return [median(times) for times in walls], [median(times) for times in cpus]
