"""Cost of the interceptor chain itself: µs per call for 0, 1 and 10 no-op interceptors,
composed once and called directly (no server, no LangChain). Target: ≤ 5 µs per interceptor."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mcp.types import CallToolResult

from mcpbridge import ToolCallHandler, ToolCallRequest, compose

RESULT = CallToolResult(content=[])
TARGET_US = 5.0


async def terminal(request: ToolCallRequest) -> CallToolResult:
    return RESULT


async def noop(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    return await handler(request)


async def per_call(depth: int, calls: int) -> float:
    chain = compose([noop] * depth, terminal)
    request = ToolCallRequest(name="echo", args={}, server_name="bench")
    for _ in range(1000):
        await chain(request)
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(calls):
            await chain(request)
        best = min(best, (time.perf_counter() - started) / calls)
    return best * 1e6


async def main() -> int:
    base = await per_call(0, 20000)
    print(f"{'interceptors':>12}{'µs/call':>10}{'µs/interceptor':>16}")
    print(f"{0:>12}{base:>10.2f}{'-':>16}")
    worst = 0.0
    for depth in (1, 10):
        cost = await per_call(depth, 20000)
        each = (cost - base) / depth
        worst = max(worst, each)
        print(f"{depth:>12}{cost:>10.2f}{each:>16.2f}")
    print(f"per no-op interceptor: {worst:.2f} µs (target ≤ {TARGET_US:g} µs)")
    return 0 if worst <= TARGET_US else 1


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
