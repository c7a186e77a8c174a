"""Another process sharing the cache, for test_cache_processes.py.

flight_worker.py lead REDIS_URL NAMESPACE KEY_TEXT LEASE
    takes the lead of KEY_TEXT's flight, prints "leading" and hangs (to be killed).
flight_worker.py calls REDIS_URL NAMESPACE SERVER_URL INDEX COUNT LEASE
    opens a bridge with the cache plugin on the HTTP server "s", says it is ready
    (INCR <NAMESPACE>:test:ready), waits for an item in the list <NAMESPACE>:test:go:<INDEX>, makes COUNT
    concurrent identical `slow` calls, and prints their texts and when they were all
        answered (time.time()) as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any

from redis.asyncio import Redis


async def lead(redis_url: str, namespace: str, key_text: str, lease: float) -> None:
    from mcpbridge_cache.flights import Lease, RedisFlights

    client = Redis.from_url(redis_url)

    async def read() -> None:
        return None

    held = await RedisFlights(namespace=namespace, lease=lease, wait=0).lead(client, key_text, read)
    assert isinstance(held, Lease), held
    print("leading", flush=True)
    await asyncio.sleep(3600)


async def calls(redis_url: str, namespace: str, server_url: str, index: str, count: int, lease: float) -> None:
    from mcpbridge import MCPBridge
    from mcpbridge.testing import make_tool_call

    settings: dict[str, Any] = {
        "backend": "redis",
        "redis_url": redis_url,
        "secret": "s",
        "namespace": namespace,
        "rules": [{"server": "s"}],
        "flight_lease": lease,
    }
    client = Redis.from_url(redis_url)
    async with MCPBridge({"s": {"url": server_url}}, plugins=["cache"], plugin_settings={"cache": settings}) as bridge:
        [tool] = [tool for tool in await bridge.list_tools() if tool.binding.tool.name == "slow"]
        await client.incr(f"{namespace}:test:ready")
        await client.blpop([f"{namespace}:test:go:{index}"], timeout=60)
        results = await asyncio.gather(*(tool.ainvoke(make_tool_call(tool, {"q": "x"})) for _ in range(count)))
        done = time.time()
    await client.aclose()
    print(json.dumps({"answers": [result.content for result in results], "done": done}), flush=True)


if __name__ == "__main__":
    mode, *args = sys.argv[1:]
    if mode == "lead":
        asyncio.run(lead(args[0], args[1], args[2], float(args[3])))
    else:
        asyncio.run(calls(args[0], args[1], args[2], args[3], int(args[4]), float(args[5])))
