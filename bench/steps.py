"""Where a bare-core call's time goes, step by step, inside real calls: each step of the
bridge's own on a call's way (`STEPS`) is timed where it runs, over stdio and in-process, and
printed per call beside the whole call's time.

A step costs several times more here than in a tight loop of its own (`python -m timeit`):
after each wait for the server the caches are cold (see `bench/idle.py`), so this, not a
loop, ranks what to make leaner. The timers add about a microsecond per step.

    python bench/steps.py [--calls 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import inspect
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from _common import basic, stdio_config, tool_call

import mcpbridge._session.connections as connections
import mcpbridge._tools.arguments as arguments
import mcpbridge._tools.schemas as schemas
import mcpbridge._tools.tool as tool
from mcpbridge import MCPBridge

logging.disable(logging.INFO)

STEPS: dict[str, tuple[Any, str]] = {
    "whether callbacks listen": (tool, "nobody_listens"),
    "the arguments' wire check": (arguments, "wire_problems"),
    "the request checked before the chain": (tool, "checked_before_chain"),
    "a schema check (arguments, output)": (schemas.ToolSchema, "problems"),
    "the result to a ToolMessage": (tool.MCPTool, "_output"),
    "the output-schema check": (connections.Connection, "output_problem"),
    "the request's last check": (connections.Connection, "_check_sendable"),
}
"""Step name: (module or class, attribute) of the step in this tree. Steps may hold others:
the output-schema check's time includes its schema check's."""

spent: defaultdict[str, float] = defaultdict(float)
runs: Counter[str] = Counter()


def timed(name: str, step: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(step):

        @functools.wraps(step)
        async def awaited(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await step(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - started
                runs[name] += 1

        return awaited

    @functools.wraps(step)
    def called(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return step(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - started
            runs[name] += 1

    return called


async def measure(transport: str, server: dict[str, Any], calls: int) -> None:
    async with MCPBridge({"bench": server}, plugins=[]) as bridge:
        echo = {t.name: t for t in await bridge.list_tools()}["echo"]
        call = tool_call("echo", {"text": "hello"})
        for _ in range(100):
            await echo.ainvoke(call)
        spent.clear()
        runs.clear()
        started = time.perf_counter()
        for _ in range(calls):
            await echo.ainvoke(call)
        whole = (time.perf_counter() - started) / calls
    print(f"{transport}: {whole * 1e6:.0f} µs per call; of it, per call:")
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {seconds / calls * 1e6:7.1f} µs  {name} ({runs[name] / calls:g} per call)")


async def main(calls: int) -> None:
    for name, (home, attribute) in STEPS.items():
        if not hasattr(home, attribute):
            raise SystemExit(f"bench/steps.py: {home.__name__}.{attribute} is gone: update STEPS ({name})")
        setattr(home, attribute, timed(name, getattr(home, attribute)))
    await measure("stdio", stdio_config(), calls)
    await measure("in-process", {"server": basic.build()}, calls)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    asyncio.run(main(parser.parse_args().calls))
