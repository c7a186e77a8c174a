"""The Redis backend against a real redis-server (MCPBRIDGE_TEST_REDIS_URL): shared
entries, keyed hashes, invalidation for every process, and what happens when Redis cannot
be reached."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import mcpbridge_cache
import pytest
from mcpbridge_cli import main
from redis.asyncio import Redis

from mcpbridge import ConfigError, MCPBridge
from mcpbridge.testing import make_runtime
from tests.helpers.cache import READS, SECRET, BridgeMaker, cache_entries, call, text

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


async def entry_keys(redis: Redis, namespace: str) -> list[str]:
    """The entry keys (not generation counters nor flight locks) of the test's namespace."""
    found = [key.decode() async for key in redis.scan_iter(match=f"{namespace}:v2:*")]
    return sorted(key for key in found if not key.startswith((f"{namespace}:v2:gen:", f"{namespace}:v2:flight:")))


async def test_entries_are_shared_between_bridges(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis
) -> None:
    async with cached_bridge(**redis_settings, rules=READS) as one, cached_bridge(**redis_settings, rules=READS) as two:
        first = await call(one, "lookup", {"q": "x"})
        second = await call(two, "lookup", {"q": "x"})
    assert calls["lookup"] == 1
    assert second.content == first.content
    assert cache_entries(second)[0]["hit"] is True


async def test_entries_are_plain_json_with_a_ttl(
    cached_bridge: BridgeMaker, redis_settings: dict[str, Any], redis: Redis, namespace: str
) -> None:
    """`<generations>|<JSON>` under `<namespace>:v2:<server>:<scope>:<tool>:<digest>`."""
    async with cached_bridge(**redis_settings, ttl=30, rules=READS) as bridge:
        await call(bridge, "lookup", {"q": "x"})
    [key] = await entry_keys(redis, namespace)
    assert re.fullmatch(rf"{re.escape(namespace)}:v2:s:[0-9a-f]{{32}}:lookup:[0-9a-f]{{64}}", key)
    tag, _, value = (await redis.get(key)).partition(b"|")
    scope = key.split(":")[-3]
    counters = await redis.mget([f"{namespace}:v2:gen:s", f"{namespace}:v2:gen:s:{scope}"])
    assert tag == b".".join(counters)  # the generations it was stored under (fresh random ones at first)
    entry = json.loads(value)
    assert entry["format"] == 1
    assert entry["result"]["content"] == [{"type": "text", "text": "x:1:1"}]
    assert 0 < await redis.pttl(key) <= 30_000


async def test_an_unreadable_entry_is_a_miss_and_is_replaced(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis, namespace: str
) -> None:
    async with cached_bridge(**redis_settings, rules=READS) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        [key] = await entry_keys(redis, namespace)
        await redis.set(key, b"0.0|\x80\x04not json")
        replaced = await call(bridge, "lookup", {"q": "x"})
        again = await call(bridge, "lookup", {"q": "x"})
    assert cache_entries(replaced)[0]["hit"] is False
    assert cache_entries(again)[0]["hit"] is True
    assert calls["lookup"] == 2


async def test_concurrent_identical_calls_reach_the_server_once(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis
) -> None:
    async with cached_bridge(**redis_settings, rules=READS) as bridge:
        messages = await asyncio.gather(*(call(bridge, "slow_lookup", {"q": "x"}) for _ in range(30)))
    assert calls["slow_lookup"] == 1
    assert {m.content[0]["text"] for m in messages} == {"slow:x"}


async def test_clear_reaches_every_process(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis, namespace: str
) -> None:
    async with cached_bridge(**redis_settings, rules=[{"server": "s", "tool": "plain"}, *READS]) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        await call(bridge, "plain", {"q": "x"})
        assert await mcpbridge_cache.clear(bridge, tool="plain") == 1
        assert [k.split(":")[-2] for k in await entry_keys(redis, namespace)] == ["lookup"]
        assert await mcpbridge_cache.clear(bridge, server="s") == 1
        await call(bridge, "lookup", {"q": "x"})
    assert calls["lookup"] == 2


def test_cli_clears_redis(tmp_path: Path, redis_url: str, namespace: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`mcpbridge cache clear` in its own process, against entries written here."""
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        f'[servers.s]\nurl = "http://127.0.0.1:9/mcp"\n\n[servers.t]\nurl = "http://127.0.0.1:9/mcp"\n\n'
        f'[plugins.cache]\nbackend = "redis"\nredis_url = "{redis_url}"\nnamespace = "{namespace}"\n'
        f'secret = "{SECRET}"\n'
    )

    async def seed() -> int:
        """Three entries, plus a generation counter and a flight lock that clear leaves alone."""
        client = Redis.from_url(redis_url)
        for server, tool in (("s", "a"), ("s", "b"), ("t", "a")):
            key = mcpbridge_cache.keys.CacheKey(server, "1" * 32, tool, "0" * 64).text(namespace)
            await client.set(key, "0.0|{}")
            await client.set(key.replace(":v2:", ":v2:flight:"), "token", px=60_000)
        await client.set(f"{namespace}:v2:gen:s:{'1' * 32}", 1)
        left = len(await entry_keys(client, namespace))
        await client.aclose()
        return left

    assert asyncio.run(seed()) == 3
    command = [
        sys.executable,
        "-m",
        "mcpbridge_cli",
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

    async def others() -> int:
        client = Redis.from_url(redis_url)
        found = len([k async for k in client.scan_iter(match=f"{namespace}:v2:*")])
        await client.unlink(*[k async for k in client.scan_iter(match=f"{namespace}:*")])
        await client.aclose()
        return found

    assert asyncio.run(others()) == 3 + 1  # the flight locks and the generation counter


PASSWORD = "redis-pa55word"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_unreachable_redis_means_uncached_with_one_warning(
    cached_bridge: BridgeMaker, calls: Counter[str], caplog: pytest.LogCaptureFixture
) -> None:
    url = f"redis://:{PASSWORD}@127.0.0.1:{_closed_port()}/0"
    with caplog.at_level(logging.DEBUG, logger="mcpbridge_cache"):
        async with cached_bridge(backend="redis", redis_url=url, redis_retry=0, secret=SECRET, rules=READS) as bridge:
            messages = [await call(bridge, "lookup", {"q": "x"}) for _ in range(3)]
            messages += await asyncio.gather(*(call(bridge, "slow_lookup", {"q": "x"}) for _ in range(3)))
            with pytest.raises(mcpbridge_cache.StoreUnavailable, match="could not clear the cache in Redis") as error:
                await mcpbridge_cache.clear(bridge)
    assert "redis://***@127.0.0.1:" in str(error.value)
    for secret in (PASSWORD, SECRET):
        assert secret not in str(error.value)
        assert secret not in caplog.text
    assert all(m.status == "success" for m in messages)
    assert (calls["lookup"], calls["slow_lookup"]) == (3, 3)
    assert cache_entries(messages[0]) == [{"type": "mcpbridge_cache", "hit": False, "bypass": "store unavailable"}]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "is unreachable" in warnings[0].getMessage()


async def test_keys_are_keyed_by_the_secret_and_reveal_nothing(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis, namespace: str
) -> None:
    """Two deployments with different secrets share nothing, and no key shows an argument
    or a partition value to whoever can list the keys."""
    argument, user = "argument-4711", "user-0815"
    runtime = make_runtime({"user_id": user})
    settings = {**redis_settings, "rules": READS, "partition_by": ["context.user_id"]}
    async with cached_bridge(**settings) as one, cached_bridge(**{**settings, "secret": "another-secret"}) as two:
        for bridge in (one, two, one, two):
            await call(bridge, "lookup", {"q": argument}, runtime=runtime)
    assert calls["lookup"] == 2
    keys = await entry_keys(redis, namespace)
    assert len(keys) == 2
    listed = " ".join([key.decode() async for key in redis.scan_iter(match=f"{namespace}:*")])
    for value in (argument, user, SECRET):
        assert value not in listed


def test_redis_needs_a_secret_that_never_shows(
    server: Any, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError, match='backend = "redis" needs `secret`'):
        MCPBridge(
            {"s": server},
            plugins=[mcpbridge_cache],
            plugin_settings={"cache": {"backend": "redis", "redis_url": redis_url}},
        )
    with pytest.raises(ConfigError) as error:
        MCPBridge(
            {"s": server},
            plugins=[mcpbridge_cache],
            plugin_settings={"cache": {"backend": "redis", "redis_url": redis_url, "secret": SECRET, "ttl": "soon"}},
        )
    assert SECRET not in str(error.value)
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        f'[servers.s]\nurl = "http://127.0.0.1:9/mcp"\n\n[plugins]\nenabled = ["cache"]\n\n'
        f'[plugins.cache]\nbackend = "redis"\nredis_url = "{redis_url}"\nsecret = "{SECRET}"\n'
        '[[plugins.cache.rules]]\nserver = "s"\n'
    )
    for command in (["plugins"], ["plugins", "--json"]):
        assert main([*command, "--config", str(config)]) == 0
        out = capsys.readouterr()
        assert "caches 1 rule: s/*; writes invalidate per partition; redis backend" in out.out
        assert SECRET not in out.out + out.err


async def test_a_write_invalidates_for_every_process(
    cached_bridge: BridgeMaker, calls: Counter[str], redis_settings: dict[str, Any], redis: Redis
) -> None:
    """`plain` is not read-only: its call through one bridge makes the other's reads fresh."""
    async with cached_bridge(**redis_settings, rules=READS) as one, cached_bridge(**redis_settings, rules=READS) as two:
        assert text(await call(one, "lookup", {"q": "x"})) == "x:1:1"
        assert cache_entries(await call(two, "lookup", {"q": "x"}))[0]["hit"] is True
        await call(one, "plain", {"q": "x"})
        fresh = await call(two, "lookup", {"q": "x"})
    assert text(fresh) == "x:1:2"
    assert cache_entries(fresh)[0]["hit"] is False
