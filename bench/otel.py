"""What the otel plugin costs per tool call when no OpenTelemetry SDK is configured (the
default no-op tracer and meter providers of opentelemetry-api): a chain with the otel
interceptor against the same chain with a pass-through interceptor. Budget: 5 µs per call.

The raw mcp SDK call (`session.call_tool` on an in-process server) is measured in the same
run for scale. Run: `.venv/bin/python bench/otel.py` (exits 1 over budget)."""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from typing import Any

from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent
from mcpbridge_otel import OtelInterceptor
from opentelemetry import trace

from mcpbridge import ToolCallHandler, ToolCallRequest, compose

BUDGET_US = 5.0
CALLS = 20_000
ROUNDS = 9
RESULT = CallToolResult(content=[TextContent(type="text", text="hi")])


async def terminal(request: ToolCallRequest) -> CallToolResult:
    return RESULT


async def pass_through(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    return await handler(request)


async def per_call_us(handler: ToolCallHandler, request: ToolCallRequest, calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        await handler(request)
    return (time.perf_counter() - started) / calls * 1e6


async def raw_sdk_call_us(calls: int = 300) -> float:
    server = MCPServer("bench")

    @server.tool()
    def echo(text: str) -> str:
        return text

    async with Client(server) as client:
        await client.session.list_tools()
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            await client.session.call_tool("echo", {"text": "hi"})
            samples.append((time.perf_counter() - started) * 1e6)
    return statistics.median(samples)


async def main() -> int:
    assert not trace.get_tracer_provider().__class__.__module__.startswith("opentelemetry.sdk"), "no SDK here"
    request = ToolCallRequest(name="echo", args={"text": "hi"}, server_name="bench")
    with_otel = compose([OtelInterceptor(), pass_through], terminal)
    without = compose([pass_through, pass_through], terminal)
    await per_call_us(with_otel, request, 2_000)  # warm up
    otel_us, noop_us = [], []
    for _ in range(ROUNDS):  # interleaved, so drift hits both alike
        otel_us.append(await per_call_us(with_otel, request, CALLS))
        noop_us.append(await per_call_us(without, request, CALLS))
    # Best round of each: other load on the machine only ever adds time (as timeit advises).
    overhead = min(otel_us) - min(noop_us)
    raw = await raw_sdk_call_us()
    print(f"pass-through chain : {min(noop_us):7.2f} µs/call (median {statistics.median(noop_us):.2f})")
    print(f"otel chain         : {min(otel_us):7.2f} µs/call (median {statistics.median(otel_us):.2f})")
    print(f"otel overhead      : {overhead:7.2f} µs/call (budget {BUDGET_US:g} µs)")
    print(f"raw mcp SDK call   : {raw:7.1f} µs/call (median; overhead = {overhead / raw:.2%} of it)")
    if overhead > BUDGET_US:
        print("FAIL: over budget")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
