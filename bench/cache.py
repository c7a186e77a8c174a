"""mcpbridge-cache: hit vs miss latency of a whole `tool.ainvoke(ToolCall)` on a stdio server.

Prints medians and the ratios the plugin promises:
  in-memory hit / miss <= 0.2, Redis hit / miss <= 0.35, and the cache's own cost per hit
  beyond a no-op short-circuit interceptor <= 50 us (in-memory);
plus the raw mcp SDK `session.call_tool` latency measured in the same run, for scale.
Uses MCPBRIDGE_TEST_REDIS_URL when set, else starts a redis-server on a spare port.
Exits 1 when a promise is not kept.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mcpbridge_cache  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.types import CallToolResult, TextContent  # noqa: E402

from mcpbridge import MCPBridge, MCPTool, ToolCallHandler, ToolCallRequest  # noqa: E402
from tests.helpers import stdio_config  # noqa: E402

MISSES = 300
HITS = 3000
ROUNDS = 10
RULES = [{"server": "basic", "tool": "echo"}]
"""Nothing is cached without rules; echo is read-only."""
SECRET = "bench-cache-secret"
_ids = itertools.count()


async def median_us(call: Callable[[], Awaitable[Any]], n: int) -> float:
    for _ in range(min(50, n)):  # warm up
        await call()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def invoker(tool: MCPTool, text: Callable[[], str]) -> Callable[[], Awaitable[Any]]:
    async def invoke() -> Any:
        message = await tool.ainvoke({"type": "tool_call", "name": tool.name, "args": {"text": text()}, "id": "c1"})
        assert message.status == "success", message.content
        return message

    return invoke


async def echo_tool(bridge: MCPBridge) -> MCPTool:
    [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "echo"]
    return tool


async def raw_sdk() -> float:
    config = stdio_config()
    params = StdioServerParameters(command=config["command"], args=config["args"], cwd=config["cwd"])
    async with Client(params) as client:
        await client.session.list_tools()
        return await median_us(lambda: client.session.call_tool("echo", {"text": "hi"}), MISSES)


async def hit_and_miss(settings: dict[str, Any]) -> tuple[float, float]:
    """(hit, miss) medians: a miss asks for a text never asked before."""
    async with MCPBridge(
        {"basic": stdio_config()}, plugins=[mcpbridge_cache], plugin_settings={"cache": {**settings, "rules": RULES}}
    ) as b:
        tool = await echo_tool(b)
        miss = await median_us(invoker(tool, lambda: f"miss-{next(_ids)}"), MISSES)
        hit = await median_us(invoker(tool, lambda: "hit"), HITS)
        return hit, miss


async def own_cost() -> tuple[float, float, float]:
    """(cache hit, no-op short-circuit, their difference) medians over alternating rounds,
    so load from other processes drifts into both sides alike."""
    canned = CallToolResult(content=[TextContent(type="text", text="hit")])

    async def noop(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return canned

    async with (
        MCPBridge(
            {"basic": stdio_config()}, plugins=[mcpbridge_cache], plugin_settings={"cache": {"rules": RULES}}
        ) as cached,
        MCPBridge({"basic": stdio_config()}, plugins=[], interceptors=[noop]) as plain,
    ):
        hit = invoker(await echo_tool(cached), lambda: "hit")
        short = invoker(await echo_tool(plain), lambda: "hit")
        hits, shorts = [], []
        for _ in range(ROUNDS):
            hits.append(await median_us(hit, HITS // ROUNDS))
            shorts.append(await median_us(short, HITS // ROUNDS))
        cost = statistics.median(h - s for h, s in zip(hits, shorts, strict=True))
        return statistics.median(hits), statistics.median(shorts), cost


@contextmanager
def redis_url() -> Iterator[str]:
    url = os.environ.get("MCPBRIDGE_TEST_REDIS_URL")
    if url:
        yield url
        return
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("bench/cache.py: no redis-server on PATH and MCPBRIDGE_TEST_REDIS_URL is not set")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("bench/cache.py: redis-server did not start") from None
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


async def clear(url: str, namespace: str) -> None:
    """Remove every key the bench wrote (entries, generation counters, flight locks)."""
    from redis.asyncio import Redis

    client = Redis.from_url(url)
    keys = [key async for key in client.scan_iter(match=f"{namespace}:*")]
    if keys:
        await client.unlink(*keys)
    await client.aclose()


async def main() -> int:
    raw = await raw_sdk()
    memory_hit, memory_miss = await hit_and_miss({})
    with redis_url() as url:
        namespace = f"mcpbridge-bench:{os.getpid()}"
        redis = {"backend": "redis", "redis_url": url, "namespace": namespace, "secret": SECRET}
        redis_hit, redis_miss = await hit_and_miss(redis)
        await clear(url, namespace)
    cached_hit, short_circuit, cost = await own_cost()
    checks = [
        ("in-memory hit / miss", memory_hit / memory_miss, 0.2, ""),
        ("Redis hit / miss", redis_hit / redis_miss, 0.35, ""),
        ("cache cost per hit beyond a no-op interceptor", cost, 50.0, " us"),
    ]
    print("mcpbridge-cache, stdio echo tool, medians of tool.ainvoke(ToolCall):")
    print(f"  raw mcp SDK session.call_tool       {raw:8.0f} us")
    print(f"  in-memory  miss {memory_miss:8.0f} us   hit {memory_hit:6.0f} us")
    print(f"  Redis      miss {redis_miss:8.0f} us   hit {redis_hit:6.0f} us")
    print(f"  no-op short-circuit {short_circuit:6.0f} us   cache hit {cached_hit:6.0f} us")
    failed = False
    for label, value, limit, unit in checks:
        ok = value <= limit
        failed |= not ok
        shown = f"{value:.1f}{unit}" if unit else f"{value:.3f}"
        print(f"  {label:<48} {shown:>10}  (<= {limit:g}{unit})  {'ok' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
