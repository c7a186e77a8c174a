"""The cache with its default in-memory store, against real in-process MCP servers: what
is cached (opt-in rules), single-flight, the chain check, keys, settings."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import mcpbridge_cache
import pytest
from langgraph.errors import GraphInterrupt
from mcp.types import ElicitResult

from mcpbridge import ConfigError, MCPBridge, Plugin, PluginError, Settings, ToolCallHandler, ToolCallRequest, hookimpl
from mcpbridge.testing import SessionProbe, make_runtime
from tests.helpers.cache import READS, BridgeMaker, cache_entries, call, counting_server, text
from tests.servers.answering import Answering, pick_a_date

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


async def test_nothing_is_cached_without_rules(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    """Read-only means no side effects, not the same answer next time: caching is opt-in."""
    async with cached_bridge() as bridge:
        messages = [await call(bridge, "lookup", {"q": "x"}) for _ in range(2)]
    assert calls["lookup"] == 2
    assert [text(m) for m in messages] == ["x:1:1", "x:1:2"]
    assert [cache_entries(m) for m in messages] == [[], []]


async def test_read_only_tool_is_answered_from_the_cache(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(rules=READS) as bridge:
        first = await call(bridge, "lookup", {"q": "x"})
        second = await call(bridge, "lookup", {"q": "x"})
    assert calls["lookup"] == 1
    assert text(first) == text(second) == "x:1:1"
    assert cache_entries(first) == [{"type": "mcpbridge_cache", "hit": False}]
    [hit] = cache_entries(second)
    assert hit["hit"] is True
    assert 0 <= hit["age_s"] < 5


async def test_arguments_are_keyed_canonically(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(rules=READS) as bridge:
        await call(bridge, "lookup", {"q": "x", "limit": 2})
        reordered = await call(bridge, "lookup", {"limit": 2, "q": "x"})
        other = await call(bridge, "lookup", {"q": "x", "limit": 3})
    assert cache_entries(reordered)[0]["hit"] is True
    assert cache_entries(other)[0]["hit"] is False
    assert calls["lookup"] == 2


@pytest.mark.parametrize("tool", ["pla*", "p?ain", "[p]lain", "*"])
async def test_a_glob_rule_does_not_cache_an_unannotated_tool(
    cached_bridge: BridgeMaker, calls: Counter[str], tool: str
) -> None:
    async with cached_bridge(rules=[{"server": "s", "tool": tool}]) as bridge:
        await call(bridge, "plain", {"q": "a"})
        again = await call(bridge, "plain", {"q": "a"})
    assert calls["plain"] == 2
    assert cache_entries(again) == []


async def test_an_exact_name_rule_caches_an_unannotated_tool(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(rules=[{"server": "s", "tool": "plain"}]) as bridge:
        await call(bridge, "plain", {"q": "a"})
        listed = await call(bridge, "plain", {"q": "a"})
    assert calls["plain"] == 1
    assert cache_entries(listed)[0]["hit"] is True


async def test_a_rule_can_keep_a_read_only_tool_out(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(rules=[{"server": "s", "tool": "*", "cache": False}]) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        await call(bridge, "lookup", {"q": "x"})
    assert calls["lookup"] == 2


async def test_the_first_matching_rule_decides(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    rules = [{"tool": "slow_*", "cache": False}, {"tool": "plain"}, {"tool": "*l*"}]
    async with cached_bridge(rules=rules) as bridge:
        for tool in ("plain", "plain", "slow_lookup", "slow_lookup", "lookup", "lookup"):
            await call(bridge, tool, {"q": "x"})
    assert (calls["plain"], calls["slow_lookup"], calls["lookup"]) == (1, 2, 1)


async def test_a_known_write_is_never_cached_even_when_named(
    cached_bridge: BridgeMaker, calls: Counter[str], caplog: pytest.LogCaptureFixture
) -> None:
    """`wipe` says destructiveHint: a rule naming it exactly is refused, with one warning."""
    async with cached_bridge(rules=[{"server": "s", "tool": "wipe"}]) as bridge:
        for _ in range(3):
            message = await call(bridge, "wipe", {"q": "a"})
    assert calls["wipe"] == 3
    assert cache_entries(message) == []
    warnings = [r for r in caplog.records if "says it is not read-only" in r.getMessage()]
    assert len(warnings) == 1
    assert "'wipe' of server 's'" in warnings[0].getMessage()


async def test_error_results_and_input_requests_are_never_cached(
    cached_bridge: BridgeMaker, calls: Counter[str]
) -> None:
    async with cached_bridge(rules=READS) as bridge:
        for _ in range(2):
            failed = await call(bridge, "failing", {"q": "a"})
            asked = await call(bridge, "ask", {"q": "a"})
    assert failed.status == "error"
    assert asked.status == "error"
    assert calls["failing"] == 2
    assert calls["ask"] == 2


async def test_entries_expire_after_their_ttl(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    # The second call comes well within the ttl even on a loaded machine; the sleep outlasts it.
    async with cached_bridge(ttl=60, rules=[{"server": "s", "tool": "lookup", "ttl": 1.5}]) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        await call(bridge, "lookup", {"q": "x"})
        assert calls["lookup"] == 1
        await asyncio.sleep(1.6)
        expired = await call(bridge, "lookup", {"q": "x"})
    assert calls["lookup"] == 2
    assert cache_entries(expired)[0]["hit"] is False


async def test_memory_store_is_a_bounded_lru(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(max_entries=2, rules=READS) as bridge:
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
    gate = asyncio.Event()
    arrived = 0

    async def count(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        """Outside the cache: the server answers once every call has reached the cache."""
        nonlocal arrived
        arrived += 1
        if arrived == 50:
            gate.set()
        return await handler(request)

    async with cached_bridge({"s": counting_server(calls, gate)}, interceptors=[count], rules=READS) as bridge:
        messages = await asyncio.gather(*(call(bridge, "slow_lookup", {"q": "x"}) for _ in range(50)))
    assert calls["slow_lookup"] == 1
    assert {text(m) for m in messages} == {"slow:x"}
    entries = [cache_entries(m)[0] for m in messages]
    assert sum(not e["hit"] for e in entries) == 1
    assert sum(bool(e.get("coalesced")) for e in entries) == 49


async def test_concurrent_failing_calls_are_not_shared(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(rules=READS) as bridge:
        messages = await asyncio.gather(*(call(bridge, "failing", {"q": "x"}) for _ in range(5)))
    assert all(m.status == "error" for m in messages)
    assert calls["failing"] == 5


async def test_a_hit_is_a_fresh_copy(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    """An outer interceptor may change a result in place; the next hit must not see it."""
    async with cached_bridge(rules=READS) as bridge:
        [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "lookup"]
        [cache] = mcpbridge_cache.interceptors_of(bridge)
        server = SessionProbe(bridge, "s").call_tool

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

    async with cached_bridge(rules=READS) as bridge:
        [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "lookup"]
        [cache] = mcpbridge_cache.interceptors_of(bridge)
        for _ in range(2):
            request = ToolCallRequest(name="lookup", args={"q": "x"}, server_name="s", tool=tool.binding.tool)
            await listen(request, lambda r: cache(r, SessionProbe(bridge, "s").call_tool))
    assert [event for event, _ in seen] == ["cache.miss", "cache.hit"]
    assert seen[1][1]["server_name"] == "s"
    assert seen[1][1]["name"] == "lookup"
    assert seen[1][1]["age_s"] >= 0


async def test_interrupts_pass_through_and_free_the_flight(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    """An interrupt raised inside the cache (where only the server is) leaves no entry and
    no flight behind."""
    async with cached_bridge(rules=READS) as bridge:
        [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "lookup"]
        [cache] = mcpbridge_cache.interceptors_of(bridge)
        interrupting = True

        async def server(request: ToolCallRequest) -> Any:
            nonlocal interrupting
            if interrupting:
                interrupting = False
                raise GraphInterrupt(())
            return await SessionProbe(bridge, "s").call_tool(request)

        def request() -> ToolCallRequest:
            return ToolCallRequest(name="lookup", args={"q": "x"}, server_name="s", tool=tool.binding.tool)

        with pytest.raises(GraphInterrupt):
            await cache(request(), server)
        again = request()
        await cache(again, server)
    assert again.artifact == [{"type": "mcpbridge_cache", "hit": False}]
    assert calls["lookup"] == 1


async def test_found_through_its_entry_point(server: Any, calls: Counter[str]) -> None:
    async with MCPBridge({"s": server}, plugins=["cache"], plugin_settings={"cache": {"rules": READS}}) as bridge:
        await call(bridge, "lookup", {"q": "x"})
        message = await call(bridge, "lookup", {"q": "x"})
    assert cache_entries(message)[0]["hit"] is True
    assert calls["lookup"] == 1


async def test_clear_invalidates_by_server_and_tool(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(rules=[{"server": "s", "tool": "plain"}, *READS]) as bridge:
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
        (
            {"backend": "redis", "redis_url": "redis://x"},
            'backend = "redis" needs `secret`: a random string shared by every process that shares the cache, '
            'e.g. secret = "${MCPBRIDGE_CACHE_SECRET}"',
        ),
        ({"backend": "redis", "redis_url": "redis://x", "secret": ""}, 'backend = "redis" needs `secret`'),
        ({"read_only": True}, "`plugins.cache.read_only`: unknown key"),
        ({"invalidate": "never"}, "`plugins.cache.invalidate`: Input should be 'partition', 'server' or 'off'"),
        ({"flight_lease": 0}, "`plugins.cache.flight_lease`: Input should be greater than 0"),
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


class Inner:
    """A plugin that `[plugins] order` may try to put inside the cache."""

    mcpbridge_name = "inner"
    mcpbridge_plugin = Plugin(position=50)

    @hookimpl
    def mcpbridge_interceptors(self) -> list[Any]:
        async def stamp(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            return await handler(request.override(meta={"stamp": "x"}))

        return [stamp]


@pytest.mark.parametrize(
    ("order", "offender"),
    [(["cache", "inner"], "plugin 'inner'"), (["inner", "cache"], "MCPBridge(interceptors=...)")],
)
def test_an_order_that_puts_a_layer_inside_the_cache_is_refused(server: Any, order: list[str], offender: str) -> None:
    async def direct(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request)

    with pytest.raises(ConfigError) as error:
        MCPBridge(
            {"s": server},
            plugins=[mcpbridge_cache, Inner()],
            interceptors=[direct],
            settings=Settings(plugins={"order": order}),
        )
    message = str(error.value)
    assert message.startswith(f"{offender} sits inside the cache (chain: ")
    assert 'the cache must be the innermost layer; put "cache" last in [plugins] order' in message


async def test_the_cache_is_innermost_by_default(server: Any, calls: Counter[str]) -> None:
    """Inside every plugin and inside MCPBridge(interceptors=...), so what they add to a call
    (here `_meta`) is part of the key."""

    async def tag(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        context = request.runtime.context if request.runtime is not None else None
        return await handler(request.override(meta={"tenant": context["tenant"]}))

    plugins = [mcpbridge_cache, Inner()]
    ok = Settings(plugins={"order": ["inner", "interceptors", "cache"]})
    for settings in (None, ok):
        async with MCPBridge(
            {"s": server},
            plugins=plugins,
            interceptors=[tag],
            settings=settings,
            plugin_settings={"cache": {"rules": READS}},
        ) as bridge:
            assert bridge.chain[-3:] == ("interceptors", "cache", "claiming")
            hits = []
            for tenant in ("a", "a", "b", "b"):
                message = await call(bridge, "lookup", {"q": "x"}, runtime=make_runtime({"tenant": tenant}))
                hits.append(cache_entries(message)[0]["hit"])
            assert hits == [False, True, False, True]
    assert calls["lookup"] == 4


def test_keys_are_keyed_hashes_that_reveal_nothing() -> None:
    """HMAC-SHA256 with the secret: another secret gives other keys, and the key text holds
    no argument, header, `_meta` or partition value."""
    from mcpbridge_cache.keys import KeyBuilder

    request = ToolCallRequest(
        "lookup",
        {"q": "arg-value-123"},
        "s",
        headers={"X-User": "header-value-456"},
        meta={"m": "meta-value-789"},
        runtime=make_runtime({"user_id": "user-value-000"}),
    )
    servers = Settings(servers={"s": {"url": "http://127.0.0.1:9/mcp"}}).servers
    sources = mcpbridge_cache.CacheSettings(partition_by=["context.user_id"]).partition_by
    one, same, other = (KeyBuilder(servers, sources, secret) for secret in (b"one", b"one", b"two"))
    key = one.key(request)
    assert key == same.key(request)
    assert (other.key(request).scope, other.key(request).digest) != (key.scope, key.digest)
    text = key.text("ns")
    assert text == f"ns:v2:s:{key.scope}:lookup:{key.digest}"
    assert (len(key.scope), len(key.digest)) == (32, 64)
    for value in ("arg-value", "header-value", "meta-value", "user-value", "x-user"):
        assert value not in text
    for change in ({"headers": {"x-user": "header-value-456"}}, {"headers": {"X-User": "other"}}, {"meta": None}):
        changed = one.key(request.override(**change))
        assert (changed == key) is (change == {"headers": {"x-user": "header-value-456"}})


def test_the_secret_never_shows() -> None:
    settings = mcpbridge_cache.CacheSettings(secret="top-secret-value", rules=[])
    assert "top-secret-value" not in repr(settings)
    assert "top-secret-value" not in str(settings.model_dump())


async def slowly_pick_a_date(context: Any, params: Any) -> ElicitResult:
    """A person taking a moment to pick a date."""
    await asyncio.sleep(0.05)
    return await pick_a_date(context, params)


async def test_an_answer_the_server_asked_the_client_for_is_never_stored_nor_shared(
    server: Any, calls: Counter[str]
) -> None:
    """`dated` is read-only but asks the client mid-call (legacy elicitation): its result
    depends on that answer, so it is neither stored nor handed to identical calls in flight."""
    async with MCPBridge(
        {"s": {"server": server, "mode": "legacy"}},
        plugins=[mcpbridge_cache, Answering(slowly_pick_a_date)],
        plugin_settings={"cache": {"rules": READS}},
    ) as bridge:
        first = await call(bridge, "dated", {"q": "x"})
        second = await call(bridge, "dated", {"q": "x"})
        together = await asyncio.gather(*(call(bridge, "dated", {"q": "y"}) for _ in range(3)))
        await call(bridge, "lookup", {"q": "x"})
        looked_up = await call(bridge, "lookup", {"q": "x"})
    assert [text(m) for m in (first, second)] == ["x@2030-01-02:1", "x@2030-01-02:2"]
    assert sorted(text(m) for m in together) == ["y@2030-01-02:3", "y@2030-01-02:4", "y@2030-01-02:5"]
    assert all(cache_entries(m) == [{"type": "mcpbridge_cache", "hit": False}] for m in (first, second, *together))
    assert calls["dated"] == 5
    assert cache_entries(looked_up)[0]["hit"] is True  # a call during which nobody asked is cached
