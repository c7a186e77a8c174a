"""Redis answering nonsense never fails a cached call: whatever sits at a generation counter,
an entry or a flight lock (another type, arbitrary bytes, garbage JSON, a huge value), the
call gets the server's own answer (a miss), the problem is logged once, and the cache
recovers. A bad counter is reset to a fresh generation, so no entry stored before it went
bad (possibly stale) is ever served; writes still invalidate. Real redis-server
(MCPBRIDGE_TEST_REDIS_URL), a real MCP server, real bridges (one per "process")."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import mcpbridge_cache
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from redis.asyncio import Redis

from mcpbridge import ConfigError, MCPBridge
from mcpbridge.testing import make_tool_call
from tests.helpers import service_url

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

SECRET = "test-cache-secret-replies"
READ_ONLY = ToolAnnotations(read_only_hint=True)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False)
TYPES = ["hash", "list", "set", "zset"]


def build(calls: Counter[str], name: str) -> MCPServer:
    server = MCPServer(name)

    @server.tool(annotations=READ_ONLY)
    def read(q: str) -> str:
        """Read-only: cached. Answers with how often it ran, so a stale answer shows."""
        calls[f"{name}.read"] += 1
        return f"{name}:{q}:{calls[f'{name}.read']}"

    @server.tool(annotations=READ_ONLY)
    def broken(q: str) -> str:
        """Read-only but an error result: never stored, so a bad entry at its key stays."""
        calls[f"{name}.broken"] += 1
        raise ToolError(f"no {q}")

    @server.tool(annotations=WRITES)
    def write(q: str) -> str:
        """A write: invalidates the server's entries."""
        calls[f"{name}.write"] += 1
        return "written"

    return server


@pytest.fixture
def calls() -> Counter[str]:
    return Counter()


@pytest.fixture
def redis_url() -> str:
    return service_url("MCPBRIDGE_TEST_REDIS_URL", "a redis-server")


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    """A client to write nonsense with."""
    client = Redis.from_url(redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def namespace(redis: Redis) -> AsyncIterator[str]:
    """A key namespace of the test's own, removed afterwards."""
    name = f"mcpbridge-test:{uuid.uuid4().hex[:12]}"
    yield name
    await unlink_all(redis, name)


async def unlink_all(redis: Redis, namespace: str) -> None:
    found = [key async for key in redis.scan_iter(match=f"{namespace}:*")]
    if found:
        await redis.unlink(*found)


Bridges = Callable[..., AbstractAsyncContextManager[MCPBridge]]


@pytest.fixture
def bridge_of(redis_url: str, namespace: str, calls: Counter[str], redis: Redis) -> Bridges:
    """`async with bridge_of() as bridge:` a bridge (a process of its own, as far as the cache
    knows) caching every read of servers "s" and "t" in the test's Redis namespace."""
    servers = {"s": build(calls, "s"), "t": build(calls, "t")}

    @asynccontextmanager
    async def make(**extra: Any) -> AsyncIterator[MCPBridge]:
        cache = {
            "backend": "redis",
            "redis_url": redis_url,
            "namespace": namespace,
            "secret": SECRET,
            "rules": [{"server": "*"}],
            **extra,
        }
        async with MCPBridge(
            servers, plugins=[mcpbridge_cache], plugin_settings={"cache": cache}, tool_name_prefix=True
        ) as bridge:
            yield bridge

    return make


async def tool_of(bridge: MCPBridge, server: str, name: str) -> Any:
    [found] = [t for t in await bridge.list_tools() if t.binding.server_name == server and t.binding.tool.name == name]
    return found


async def call(bridge: MCPBridge, server: str, tool: str, q: str = "x") -> tuple[str, dict[str, Any]]:
    """The text of a successful call (it must succeed) and its cache artifact entry."""
    found = await tool_of(bridge, server, tool)
    message = await found.ainvoke(make_tool_call(found, {"q": q}))
    assert message.status == "success", message.content
    entries = [a for a in message.artifact if a.get("type") == mcpbridge_cache.ARTIFACT_TYPE]
    texts = [block["text"] for block in message.content if block.get("type") == "text"]
    return (texts or [""])[0], (entries or [{}])[0]  # a write has no cache entry


MISS = {"type": "mcpbridge_cache", "hit": False}


async def stored(bridge: MCPBridge, redis: Redis, namespace: str) -> dict[str, str]:
    """Call `read` on "s" (it is stored); its server counter, scope counter and entry."""
    await call(bridge, "s", "read")
    prefix = f"{namespace}:v2:"
    entry, *_ = [key.decode() async for key in redis.scan_iter(match=f"{prefix}s:*:read:*")]
    scope = entry.removeprefix(prefix).split(":")[1]
    return {"server": f"{prefix}gen:s", "scope": f"{prefix}gen:s:{scope}", "entry": entry}


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and r.name == "mcpbridge_cache"]


async def put(redis: Redis, key: str, kind: str, value: bytes = b"x") -> None:
    """Replace `key` with a value of Redis type `kind` (or the string `value`)."""
    await redis.delete(key)
    writers: dict[str, Callable[[], Awaitable[Any]]] = {
        "string": lambda: redis.set(key, value),
        "hash": lambda: redis.hset(key, "f", value),
        "list": lambda: redis.rpush(key, value),
        "set": lambda: redis.sadd(key, value),
        "zset": lambda: redis.zadd(key, {value: 1}),
    }
    await writers[kind]()


async def tag_of(redis: Redis, entry: str) -> bytes:
    """The generation tag of a stored entry."""
    return (await redis.get(entry) or b"").partition(b"|")[0]


async def forge(redis: Redis, keys: dict[str, str], body: bytes, entry: str | None = None) -> None:
    """Put `body` at `entry` (the stored one by default) under the current generation tag."""
    await redis.set(entry or keys["entry"], await tag_of(redis, keys["entry"]) + b"|" + body)


async def test_a_non_integer_counter_is_a_fresh_generation_for_every_process_logged_once(
    bridge_of: Bridges, redis: Redis, namespace: str, calls: Counter[str], caplog: pytest.LogCaptureFixture
) -> None:
    async with bridge_of() as one, bridge_of() as two:
        keys = await stored(one, redis, namespace)
        text, entry = await call(two, "s", "read")
        assert (text, entry["hit"]) == ("s:x:1", True)
        await call(one, "t", "read")  # the bystander: another server in the same processes
        await redis.set(keys["server"], "x")  # the reproduction
        with caplog.at_level(logging.INFO, logger="mcpbridge_cache"):
            answers = [await call(bridge, "s", "read") for bridge in (one, two, one, two)]
            bystander = await call(two, "t", "read")
        assert [text for text, _ in answers] == ["s:x:2"] * 4  # the old entry is never served again
        assert [entry["hit"] for _, entry in answers] == [False, True, True, True]
        assert (bystander[0], bystander[1]["hit"]) == ("t:x:1", True)
        [warning] = warnings_of(caplog)
        assert "generation counter" in warning
        assert "not a generation number" in warning
        assert (await redis.get(keys["server"]) or b"").isdigit()  # reset, for every process
        await call(one, "s", "write")  # writes still invalidate, for every process
        assert await call(two, "s", "read") == ("s:x:3", MISS)


@pytest.mark.parametrize("counter", ["server", "scope"])
@pytest.mark.parametrize("kind", TYPES)
async def test_a_counter_of_another_type_never_brings_back_a_stale_entry(
    bridge_of: Bridges, redis: Redis, namespace: str, counter: str, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The write bumps the counter that then goes bad (a server's one with invalidate = "server")."""
    invalidate = "server" if counter == "server" else "partition"
    async with bridge_of(invalidate=invalidate) as one, bridge_of(invalidate=invalidate) as two:
        await call(one, "s", "read", "old")  # stored here, and made stale by the write below
        keys = await stored(one, redis, namespace)
        await call(one, "s", "write")
        await put(redis, keys[counter], kind)
        with caplog.at_level(logging.INFO, logger="mcpbridge_cache"):
            assert await call(two, "s", "read", "old") == ("s:old:3", MISS)
            assert (await call(one, "s", "read", "old"))[1]["hit"] is True
        assert len(warnings_of(caplog)) == 1, warnings_of(caplog)
        await put(redis, keys[counter], kind)  # a write while the counter is of another type
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="mcpbridge_cache"):
            await call(two, "s", "write")
            assert await call(one, "s", "read", "old") == ("s:old:4", MISS)
        [warning] = warnings_of(caplog)
        assert f"a {kind}" in warning
        assert "unreachable" not in warning


def entry_json(**changes: Any) -> bytes:
    """An entry body as the cache writes it, with `changes`."""
    result = {"content": [{"type": "text", "text": "forged"}]}
    return json.dumps({"format": 1, "stored_at": time.time(), "result": result, **changes}).encode()


BAD_BODIES = {
    "bad utf-8": b"\x80\x04\xff not json",
    "empty": b"",
    "not an object": b"[1, 2]",
    "no result": b'{"format": 1, "stored_at": 1}',
    "deeply nested": b'{"format": 1, "stored_at": 1, "result": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "infinite stored_at": entry_json(stored_at=1e999),
    "huge stored_at": entry_json(stored_at=0).replace(b'"stored_at": 0', b'"stored_at": ' + b"9" * 400),
    "stored_at a string": entry_json(stored_at="yesterday"),
    "content not a list": entry_json(result={"content": "forged"}),
    "an error result": entry_json(result={"content": [{"type": "text", "text": "forged"}], "isError": True}),
    "unknown content": entry_json(result={"content": [{"type": "hologram", "text": "forged"}]}),
}


@pytest.mark.parametrize("body", list(BAD_BODIES.values()), ids=list(BAD_BODIES))
async def test_an_unreadable_entry_is_a_miss_logged_once_and_replaced(
    bridge_of: Bridges, redis: Redis, namespace: str, body: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    async with bridge_of() as bridge:
        keys = await stored(bridge, redis, namespace)
        await forge(redis, keys, body)
        with caplog.at_level(logging.INFO, logger="mcpbridge_cache"):
            assert await call(bridge, "s", "read") == ("s:x:2", MISS)
            assert (await call(bridge, "s", "read"))[1]["hit"] is True  # replaced by the server's answer
        [warning] = warnings_of(caplog)
        assert "unreadable" in warning
        assert "forged" not in warning  # a log line never quotes an entry (another caller's result)


@pytest.mark.parametrize("kind", ["string", *TYPES])
async def test_an_entry_that_is_no_entry_is_a_miss(bridge_of: Bridges, redis: Redis, namespace: str, kind: str) -> None:
    """Another type at the entry key, or a string without a generation tag."""
    async with bridge_of() as bridge:
        keys = await stored(bridge, redis, namespace)
        await put(redis, keys["entry"], kind, b"no tag at all")
        assert await call(bridge, "s", "read") == ("s:x:2", MISS)
        assert (await call(bridge, "s", "read"))[1]["hit"] is True


async def test_a_huge_entry_is_a_miss_and_is_never_decoded(
    bridge_of: Bridges, redis: Redis, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A valid entry of 8 MB: decoding it would block the event loop; it is a miss."""
    async with bridge_of() as bridge:
        keys = await stored(bridge, redis, namespace)
        await forge(redis, keys, entry_json(result={"content": [{"type": "text", "text": "forged " * 1_200_000}]}))
        with caplog.at_level(logging.INFO, logger="mcpbridge_cache"):
            assert await call(bridge, "s", "read") == ("s:x:2", MISS)
        assert len(await redis.get(keys["entry"]) or b"") < 1000  # replaced by the server's answer
        [warning] = warnings_of(caplog)
        assert "max_entry_bytes" in warning


async def test_a_result_over_max_entry_bytes_is_not_stored(bridge_of: Bridges, calls: Counter[str]) -> None:
    async with bridge_of(max_entry_bytes=100) as bridge:
        entries = [(await call(bridge, "s", "read", "y" * 200))[1] for _ in range(2)]
    assert entries == [MISS, MISS]
    assert calls["s.read"] == 2


async def test_a_bad_entry_that_stays_is_logged_once_not_per_call(
    bridge_of: Bridges, redis: Redis, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    """`broken` answers with an error, which is never stored, so nothing replaces its bad entry."""
    async with bridge_of() as bridge:
        keys = await stored(bridge, redis, namespace)
        tool = await tool_of(bridge, "s", "broken")
        await tool.ainvoke(make_tool_call(tool, {"q": "x"}))
        # Its flight lock (left as a marker: nothing was stored) names the entry key.
        [flight] = [k.decode() async for k in redis.scan_iter(match=f"{namespace}:v2:flight:s:*:broken:*")]
        entry = flight.replace(":v2:flight:", ":v2:")
        await forge(redis, keys, b"garbage", entry)
        with caplog.at_level(logging.INFO, logger="mcpbridge_cache"):
            for _ in range(4):
                message = await tool.ainvoke(make_tool_call(tool, {"q": "x"}))
                assert message.status == "error"
                assert "no x" in message.content[0]["text"]  # the server's own answer, every time
        assert await redis.get(entry) is not None  # still there
        assert len([w for w in warnings_of(caplog) if "unreadable" in w]) == 1


async def test_a_flight_lock_holding_nonsense_does_not_hold_calls_back(
    bridge_of: Bridges, redis: Redis, namespace: str
) -> None:
    """A flight lock with a value no process writes (and no expiry) is not waited for."""
    async with bridge_of(flight_wait=10) as bridge:
        keys = await stored(bridge, redis, namespace)
        await redis.delete(keys["entry"])
        await redis.set(keys["entry"].replace(":v2:", ":v2:flight:"), "garbage")
        start = time.perf_counter()
        assert await call(bridge, "s", "read") == ("s:x:2", MISS)
    assert time.perf_counter() - start < 5.0  # far from flight_wait (10 s), with room for a loaded machine


def test_a_redis_url_that_decodes_replies_is_refused(redis_url: str) -> None:
    settings = {"backend": "redis", "redis_url": f"{redis_url}?decode_responses=True", "secret": SECRET}
    with pytest.raises(ConfigError, match="decode_responses"):
        MCPBridge({"s": build(Counter(), "s")}, plugins=[mcpbridge_cache], plugin_settings={"cache": settings})


@pytest.fixture
async def bridge(bridge_of: Bridges) -> AsyncIterator[MCPBridge]:
    """One bridge for every example of a hypothesis test."""
    async with bridge_of() as opened:
        yield opened


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
_results = st.dictionaries(st.sampled_from(["content", "isError", "structuredContent", "_meta"]), _json, max_size=3)
_values = st.sampled_from([b"", b"0", b"-1", b"01", b"1.5", b" 7", b"9" * 19, b"1e3", b"\x00"]) | st.binary(max_size=64)
_bodies = (
    st.binary(max_size=200)
    | st.builds(lambda doc: json.dumps(doc).encode(), _json)
    | st.builds(lambda result: entry_json(result=result), _results)
    | st.builds(lambda stored_at: entry_json(stored_at=stored_at), _json)
)


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    target=st.sampled_from(["server", "scope", "entry"]),
    kind=st.sampled_from(["string", "string", "string", *TYPES]),
    value=_values,
    body=_bodies,
    tagged=st.booleans(),
)
@example(target="server", kind="string", value=b"x", body=b"", tagged=False)
async def test_nonsense_anywhere_is_a_miss_with_the_servers_answer(
    bridge: MCPBridge,
    redis: Redis,
    namespace: str,
    calls: Counter[str],
    target: str,
    kind: str,
    value: bytes,
    body: bytes,
    tagged: bool,
) -> None:
    await unlink_all(redis, namespace)
    keys = await stored(bridge, redis, namespace)
    first = f"s:x:{calls['s.read']}"
    if target == "entry" and tagged:
        value = await tag_of(redis, keys["entry"]) + b"|" + body
    await put(redis, keys[target], kind, value)
    text, entry = await call(bridge, "s", "read")
    if entry["hit"]:  # a valid counter or a well-formed entry (forged, as anyone who can write Redis can)
        return
    assert text == f"s:x:{calls['s.read']}"  # the server's own answer
    assert text != first
    again, entry = await call(bridge, "s", "read")
    assert (again, entry["hit"]) == (text, True)  # recovered
