"""The cache with its default in-memory store, against real in-process MCP servers."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import mcpbridge_cache
import pytest
from langgraph.errors import GraphInterrupt

from mcpbridge import ConfigError, MCPBridge, PluginError, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import make_tool_call

from .conftest import BridgeMaker, cache_entries


async def call(bridge: MCPBridge, tool: str, args: dict[str, Any], *, runtime: Any = None) -> Any:
    tools = {t.binding.tool.name: t for t in await bridge.list_tools()}
    return await tools[tool].ainvoke(make_tool_call(tools[tool], args, runtime=runtime))


def text(message: Any) -> str:
    return str(message.content[0]["text"])


async def test_read_only_tool_is_answered_from_the_cache(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge() as bridge:
        first = await call(bridge, "lookup", {"q": "x"})
        second = await call(bridge, "lookup", {"q": "x"})
    assert calls["lookup"] == 1
    assert text(first) == text(second) == "x:1:1"
    assert cache_entries(first) == [{"type": "mcpbridge_cache", "hit": False}]
    [hit] = cache_entries(second)
    assert hit["hit"] is True
    assert 0 <= hit["age_s"] < 5


async def test_arguments_are_keyed_canonically(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge() as bridge:
        await call(bridge, "lookup", {"q": "x", "limit": 2})
        reordered = await call(bridge, "lookup", {"limit": 2, "q": "x"})
        other = await call(bridge, "lookup", {"q": "x", "limit": 3})
    assert cache_entries(reordered)[0]["hit"] is True
    assert cache_entries(other)[0]["hit"] is False
    assert calls["lookup"] == 2


async def test_unannotated_tool_is_cached_only_when_listed(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge() as bridge:
        await call(bridge, "plain", {"q": "a"})
        unlisted = await call(bridge, "plain", {"q": "a"})
    assert calls["plain"] == 2
    assert cache_entries(unlisted) == []
    async with cached_bridge(rules=[{"server": "s", "tool": "plain"}]) as bridge:
        await call(bridge, "plain", {"q": "a"})
        listed = await call(bridge, "plain", {"q": "a"})
    assert calls["plain"] == 3
    assert cache_entries(listed)[0]["hit"] is True


async def test_a_rule_can_keep_a_read_only_tool_out(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(rules=[{"server": "s", "tool": "*", "cache": False}]) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        await call(bridge, "lookup", {"q": "x"})
    assert calls["lookup"] == 2


async def test_the_first_matching_rule_decides(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    rules = [{"tool": "slow_*", "cache": False}, {"tool": "*l*"}]
    async with cached_bridge(rules=rules) as bridge:
        for tool in ("plain", "plain", "slow_lookup", "slow_lookup", "lookup", "lookup"):
            await call(bridge, tool, {"q": "x"})
    assert (calls["plain"], calls["slow_lookup"], calls["lookup"]) == (1, 2, 1)


async def test_destructive_tool_is_never_cached_even_when_listed(
    cached_bridge: BridgeMaker, calls: Counter[str], caplog: pytest.LogCaptureFixture
) -> None:
    async with cached_bridge(rules=[{"server": "s", "tool": "wipe"}]) as bridge:
        for _ in range(3):
            message = await call(bridge, "wipe", {"q": "a"})
    assert calls["wipe"] == 3
    assert cache_entries(message) == []
    warnings = [r for r in caplog.records if "destructive" in r.getMessage()]
    assert len(warnings) == 1


async def test_error_results_and_input_requests_are_never_cached(
    cached_bridge: BridgeMaker, calls: Counter[str]
) -> None:
    async with cached_bridge() as bridge:
        for _ in range(2):
            failed = await call(bridge, "failing", {"q": "a"})
            asked = await call(bridge, "ask", {"q": "a"})
    assert failed.status == "error"
    assert asked.status == "error"
    assert calls["failing"] == 2
    assert calls["ask"] == 2


async def test_entries_expire_after_their_ttl(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(ttl=60, rules=[{"server": "s", "tool": "lookup", "ttl": 0.6}]) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        await call(bridge, "lookup", {"q": "x"})
        assert calls["lookup"] == 1
        await asyncio.sleep(0.8)
        expired = await call(bridge, "lookup", {"q": "x"})
    assert calls["lookup"] == 2
    assert cache_entries(expired)[0]["hit"] is False


async def test_memory_store_is_a_bounded_lru(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(max_entries=2) as bridge:
        for q in ("a", "b", "a", "c"):  # "a" was used after "b": "b" is the one evicted
            await call(bridge, "lookup", {"q": q})
        assert calls["lookup"] == 3
        await call(bridge, "lookup", {"q": "a"})
        assert calls["lookup"] == 3
        await call(bridge, "lookup", {"q": "b"})
        assert calls["lookup"] == 4
        [interceptor] = mcpbridge_cache.interceptors_of(bridge)
        assert isinstance(interceptor.store, mcpbridge_cache.MemoryStore)
        assert len(interceptor.store) == 2


async def test_concurrent_identical_calls_reach_the_server_once(
    cached_bridge: BridgeMaker, calls: Counter[str]
) -> None:
    async with cached_bridge() as bridge:
        messages = await asyncio.gather(*(call(bridge, "slow_lookup", {"q": "x"}) for _ in range(50)))
    assert calls["slow_lookup"] == 1
    assert {text(m) for m in messages} == {"slow:x"}
    entries = [cache_entries(m)[0] for m in messages]
    assert sum(not e["hit"] for e in entries) == 1
    assert sum(bool(e.get("coalesced")) for e in entries) == 49


async def test_concurrent_failing_calls_are_not_shared(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge() as bridge:
        messages = await asyncio.gather(*(call(bridge, "failing", {"q": "x"}) for _ in range(5)))
    assert all(m.status == "error" for m in messages)
    assert calls["failing"] == 5


async def test_a_hit_is_a_fresh_copy(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    """An outer interceptor may change a result in place; the next hit must not see it."""
    async with cached_bridge() as bridge:
        [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "lookup"]
        [cache] = mcpbridge_cache.interceptors_of(bridge)
        server = bridge.connections["s"].call_tool

        def request() -> ToolCallRequest:
            return ToolCallRequest(name="lookup", args={"q": "x"}, server_name="s", tool=tool.binding.tool)

        first = await cache(request(), server)
        first.content[0].text = "changed"
        second = await cache(request(), server)
        third = await cache(request(), server)
    assert calls["lookup"] == 1
    assert second.content[0].text == third.content[0].text == "x:1:1"
    assert second is not third


async def test_hits_and_misses_are_notified(cached_bridge: BridgeMaker) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    async def listen(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(observers=(*request.observers, lambda e, d: seen.append((e, dict(d))))))

    async with cached_bridge() as bridge:
        [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "lookup"]
        [cache] = mcpbridge_cache.interceptors_of(bridge)
        for _ in range(2):
            request = ToolCallRequest(name="lookup", args={"q": "x"}, server_name="s", tool=tool.binding.tool)
            await listen(request, lambda r: cache(r, bridge.connections["s"].call_tool))
    assert [event for event, _ in seen] == ["cache.miss", "cache.hit"]
    assert seen[1][1]["server_name"] == "s"
    assert seen[1][1]["name"] == "lookup"
    assert seen[1][1]["age_s"] >= 0


async def test_interrupts_pass_through_and_free_the_flight(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    interrupting = True

    async def interrupt_once(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        nonlocal interrupting
        if interrupting:
            interrupting = False
            raise GraphInterrupt(())
        return await handler(request)

    async with cached_bridge(interceptors=[interrupt_once]) as bridge:
        with pytest.raises(GraphInterrupt):
            await call(bridge, "lookup", {"q": "x"})
        message = await call(bridge, "lookup", {"q": "x"})
    assert cache_entries(message) == [{"type": "mcpbridge_cache", "hit": False}]
    assert calls["lookup"] == 1


async def test_found_through_its_entry_point(server: Any, calls: Counter[str]) -> None:
    async with MCPBridge({"s": server}, plugins=["cache"]) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        message = await call(bridge, "lookup", {"q": "x"})
    assert cache_entries(message)[0]["hit"] is True
    assert calls["lookup"] == 1


async def test_clear_invalidates_by_server_and_tool(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(rules=[{"server": "s", "tool": "plain"}]) as bridge:
        for tool in ("lookup", "plain"):
            await call(bridge, tool, {"q": "x"})
        assert await mcpbridge_cache.clear(bridge, server="s", tool="plain") == 1
        await call(bridge, "lookup", {"q": "x"})
        await call(bridge, "plain", {"q": "x"})
        assert (calls["lookup"], calls["plain"]) == (1, 2)
        assert await mcpbridge_cache.clear(bridge) == 2
        await call(bridge, "lookup", {"q": "x"})
        assert calls["lookup"] == 2
        with pytest.raises(ConfigError, match="unknown server 'nope'; configured servers: s"):
            await mcpbridge_cache.clear(bridge, server="nope")


async def test_clear_needs_the_plugin(server: Any) -> None:
    async with MCPBridge({"s": server}, plugins=[]) as bridge:
        with pytest.raises(PluginError, match="this bridge has no cache"):
            await mcpbridge_cache.clear(bridge)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"ttl": 0}, "`plugins.cache.ttl`: Input should be greater than 0"),
        ({"colour": "red"}, "`plugins.cache.colour`: unknown key"),
        ({"partition_by": ["user_id"]}, "'user_id' is not a value source: use `context.<field>`"),
        ({"backend": "redis"}, 'backend = "redis" needs `redis_url`'),
        ({"redis_url": "redis://x"}, 'add backend = "redis"'),
        ({"backend": "redis", "redis_url": "http://x"}, "must start with redis://"),
        ({"backend": "redis", "redis_url": "http://u:pa55word@x"}, "not 'http://***@x'"),
        ({"rules": [{"server": "elsewhere"}]}, "server pattern 'elsewhere' matches no configured server"),
        ({"rules": [{"server": "s", "ttl": -1}]}, "`plugins.cache.rules.0.ttl`: Input should be greater than 0"),
        ({"tools": []}, "`plugins.cache.tools`: unknown key"),
    ],
)
def test_bad_settings_are_named(server: Any, settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match="plugin 'cache'") as error:
        MCPBridge({"s": server}, plugins=[mcpbridge_cache], plugin_settings={"cache": settings})
    assert message in str(error.value)
