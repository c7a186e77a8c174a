"""The Redis backend against a real redis-server (MCPBRIDGE_TEST_REDIS_URL), and what
happens when Redis cannot be reached."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcpbridge_cache
import pytest
from redis.asyncio import Redis

from mcpbridge import MCPBridge
from mcpbridge._cli import main
from mcpbridge.testing import make_tool_call

from .conftest import BridgeMaker, cache_entries


async def call(bridge: MCPBridge, tool: str, args: dict[str, Any]) -> Any:
    tools = {t.binding.tool.name: t for t in await bridge.list_tools()}
    return await tools[tool].ainvoke(make_tool_call(tools[tool], args))


@pytest.fixture
async def redis(redis_url: str, namespace: str) -> AsyncIterator[Redis]:
    """A client to look at what the plugin stored; removes the test's keys afterwards."""
    client = Redis.from_url(redis_url)
    yield client
    keys = [key async for key in client.scan_iter(match=f"{namespace}:*")]
    if keys:
        await client.unlink(*keys)
    await client.aclose()


@pytest.fixture
def redis_settings(redis_url: str, namespace: str) -> dict[str, Any]:
    return {"backend": "redis", "redis_url": redis_url, "namespace": namespace}


async def test_entries_are_shared_between_bridges(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis
) -> None:
    async with cached_bridge(**redis_settings) as one, cached_bridge(**redis_settings) as two:
        first = await call(one, "lookup", {"q": "x"})
        second = await call(two, "lookup", {"q": "x"})
    assert calls["lookup"] == 1
    assert second.content == first.content
    assert cache_entries(second)[0]["hit"] is True


async def test_entries_are_plain_json_with_a_ttl(
    cached_bridge: BridgeMaker, redis_settings: dict[str, Any], redis: Redis, namespace: str
) -> None:
    async with cached_bridge(**redis_settings, ttl=30) as bridge:
        await call(bridge, "lookup", {"q": "x"})
    [key] = [key async for key in redis.scan_iter(match=f"{namespace}:*")]
    assert key.decode().startswith(f"{namespace}:v1:s:lookup:")
    entry = json.loads(await redis.get(key))
    assert entry["format"] == 1
    assert entry["result"]["content"] == [{"type": "text", "text": "x:1:1"}]
    assert 0 < await redis.pttl(key) <= 30_000


async def test_an_unreadable_entry_is_a_miss_and_is_replaced(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis, namespace: str
) -> None:
    async with cached_bridge(**redis_settings) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        [key] = [key async for key in redis.scan_iter(match=f"{namespace}:*")]
        await redis.set(key, b"\x80\x04not json")
        replaced = await call(bridge, "lookup", {"q": "x"})
        again = await call(bridge, "lookup", {"q": "x"})
    assert cache_entries(replaced)[0]["hit"] is False
    assert cache_entries(again)[0]["hit"] is True
    assert calls["lookup"] == 2


async def test_concurrent_identical_calls_reach_the_server_once(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis
) -> None:
    async with cached_bridge(**redis_settings) as bridge:
        messages = await asyncio.gather(*(call(bridge, "slow_lookup", {"q": "x"}) for _ in range(30)))
    assert calls["slow_lookup"] == 1
    assert {m.content[0]["text"] for m in messages} == {"slow:x"}


async def test_clear_reaches_every_process(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis, namespace: str
) -> None:
    async with cached_bridge(**redis_settings, rules=[{"server": "s", "tool": "plain"}]) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        await call(bridge, "plain", {"q": "x"})
        assert await mcpbridge_cache.clear(bridge, tool="plain") == 1
        assert [k.decode().split(":")[-2] async for k in redis.scan_iter(match=f"{namespace}:*")] == ["lookup"]
        assert await mcpbridge_cache.clear(bridge, server="s") == 1
        await call(bridge, "lookup", {"q": "x"})
    assert calls["lookup"] == 2


def test_cli_clears_redis(tmp_path: Path, redis_url: str, namespace: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`mcpbridge cache clear` in its own process, against entries written here."""
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        f'[servers.s]\nurl = "http://127.0.0.1:9/mcp"\n\n[servers.t]\nurl = "http://127.0.0.1:9/mcp"\n\n'
        f'[plugins.cache]\nbackend = "redis"\nredis_url = "{redis_url}"\nnamespace = "{namespace}"\n'
    )

    async def seed() -> int:
        client = Redis.from_url(redis_url)
        for server, tool in (("s", "a"), ("s", "b"), ("t", "a")):
            await client.set(mcpbridge_cache.keys.CacheKey(server, tool, "0" * 64).text(namespace), "{}")
        left = len([k async for k in client.scan_iter(match=f"{namespace}:*")])
        await client.aclose()
        return left

    asyncio.run(seed())
    command = [
        sys.executable,
        "-m",
        "mcpbridge._cli",
        "cache",
        "clear",
        "--config",
        str(config),
        "--server",
        "s",
        "--tool",
        "a",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "cleared 1 cache entry (server=s tool=a)")
    assert main(["cache", "clear", "--config", str(config), "--tool", "a"]) == 0
    assert main(["cache", "--config", str(config), "clear"]) == 0
    assert capsys.readouterr().out.splitlines() == ["cleared 1 cache entry (tool=a)", "cleared 1 cache entry (all)"]
    assert asyncio.run(seed()) == 3


SECRET = "redis-pa55word"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_unreachable_redis_means_uncached_with_one_warning(
    cached_bridge: BridgeMaker, calls: Counter[str], caplog: pytest.LogCaptureFixture
) -> None:
    url = f"redis://:{SECRET}@127.0.0.1:{_closed_port()}/0"
    with caplog.at_level(logging.WARNING, logger="mcpbridge_cache"):
        async with cached_bridge(backend="redis", redis_url=url, redis_retry=0) as bridge:
            messages = [await call(bridge, "lookup", {"q": "x"}) for _ in range(3)]
            messages += await asyncio.gather(*(call(bridge, "slow_lookup", {"q": "x"}) for _ in range(3)))
            with pytest.raises(mcpbridge_cache.StoreUnavailable, match="could not clear the cache in Redis") as error:
                await mcpbridge_cache.clear(bridge)
    assert "redis://***@127.0.0.1:" in str(error.value)
    assert SECRET not in str(error.value)
    assert SECRET not in caplog.text
    assert all(m.status == "success" for m in messages)
    assert (calls["lookup"], calls["slow_lookup"]) == (3, 3)
    assert cache_entries(messages[0]) == [{"type": "mcpbridge_cache", "hit": False, "bypass": "store unavailable"}]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "is unreachable" in warnings[0].getMessage()
