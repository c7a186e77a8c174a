"""Writes make reads fresh: a call of a tool that is not read-only invalidates, before it is
sent and again after it ends, that caller's entries of its server ("partition"), all of
them ("server"), or nothing ("off"). Against a real in-process server holding a value."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import mcpbridge_cache
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from mcpbridge import MCPBridge, ToolCallRequest
from mcpbridge.testing import make_runtime
from tests.helpers.cache import READ_ONLY, cache_entries, call, text

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

WRITE = ToolAnnotations(destructive_hint=False)
"""A known write that destroys nothing (still not read-only)."""


class Store:
    """The server's state, what reached it, and gates that hold a call half-way."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {"k": "v0"}
        self.calls: Counter[str] = Counter()
        self.halfway = asyncio.Event()
        self.go_on = asyncio.Event()


def state_server(store: Store) -> MCPServer:
    server = MCPServer("state")

    @server.tool(annotations=READ_ONLY)
    def get(key: str) -> str:
        store.calls["get"] += 1
        return store.values[key]

    @server.tool(annotations=READ_ONLY)
    async def slow_get(key: str) -> str:
        """Reads, then waits for the test before answering."""
        store.calls["slow_get"] += 1
        found = store.values[key]
        store.halfway.set()
        await store.go_on.wait()
        return found

    @server.tool(annotations=WRITE)
    def put(key: str, value: str) -> str:
        store.calls["put"] += 1
        store.values[key] = value
        return "ok"

    @server.tool()
    def put_plain(key: str, value: str) -> str:
        """Says nothing about itself: a write too."""
        store.calls["put_plain"] += 1
        store.values[key] = value
        return "ok"

    @server.tool(annotations=WRITE)
    async def slow_put(key: str, value: str) -> str:
        """Writes, then waits for the test before answering."""
        store.values[key] = value
        store.halfway.set()
        await store.go_on.wait()
        return "ok"

    @server.tool(annotations=WRITE)
    def put_and_fail(key: str, value: str) -> str:
        store.values[key] = value
        raise ToolError("written, then failed")

    return server


@pytest.fixture
def store() -> Store:
    return Store()


Bridge = Callable[..., AbstractAsyncContextManager[MCPBridge]]


@pytest.fixture(params=["memory", "redis"])
def bridge(store: Store, request: pytest.FixtureRequest) -> Bridge:
    """In memory, then in Redis. Callers are told apart by `context.user_id` (the in-process
    server carries no headers)."""
    backend = request.getfixturevalue("redis_settings") if request.param == "redis" else {}

    @asynccontextmanager
    async def make(**settings: Any) -> AsyncIterator[MCPBridge]:
        settings = {"rules": [{"server": "s"}], "partition_by": ["context.user_id"], **backend, **settings}
        async with MCPBridge(
            {"s": state_server(store)}, plugins=[mcpbridge_cache], plugin_settings={"cache": settings}
        ) as made:
            yield made

    return make


ANN, BOB = make_runtime({"user_id": "ann"}), make_runtime({"user_id": "bob"})


async def read(bridge: MCPBridge, who: Any, tool: str = "get") -> tuple[str, bool]:
    message = await call(bridge, tool, {"key": "k"}, runtime=who)
    return text(message), cache_entries(message)[0]["hit"]


@pytest.mark.parametrize(
    ("invalidate", "ann_after", "bob_after"),
    [
        ("partition", ("v1", False), ("v0", True)),
        ("server", ("v1", False), ("v1", False)),
        ("off", ("v0", True), ("v0", True)),
    ],
)
@pytest.mark.parametrize("write", ["put", "put_plain"])
async def test_a_write_invalidates(
    bridge: Bridge, store: Store, invalidate: str, write: str, ann_after: Any, bob_after: Any
) -> None:
    async with bridge(invalidate=invalidate) as made:
        assert [await read(made, who) for who in (ANN, BOB, ANN, BOB)] == [("v0", False)] * 2 + [("v0", True)] * 2
        await call(made, write, {"key": "k", "value": "v1"}, runtime=ANN)
        assert await read(made, ANN) == ann_after
        assert await read(made, BOB) == bob_after
    assert store.calls[write] == 1


async def test_a_read_in_flight_during_the_write_leaves_no_stale_entry(bridge: Bridge, store: Store) -> None:
    """The read got "v0" before the write; it ends after the write and must not store "v0"
    for the reads that follow."""
    async with bridge() as made:
        reading = asyncio.create_task(read(made, ANN, "slow_get"))
        await store.halfway.wait()
        await call(made, "put", {"key": "k", "value": "v1"}, runtime=ANN)
        store.go_on.set()
        assert await reading == ("v0", False)  # right for that call: it read before the write
        assert await read(made, ANN, "slow_get") == ("v1", False)
        assert await read(made, ANN, "slow_get") == ("v1", True)
    assert store.calls["slow_get"] == 2


async def test_a_read_after_the_write_does_not_wait_for_one_from_before(bridge: Bridge, store: Store) -> None:
    """Identical reads share one call in flight, but not across a write: the read that
    starts after it calls the server itself (through Redis, once it waited `flight_wait`
    for the other call, which here waits for it)."""
    async with bridge(flight_wait=0.2) as made:
        before = asyncio.create_task(read(made, ANN, "slow_get"))
        await store.halfway.wait()
        store.halfway.clear()
        await call(made, "put", {"key": "k", "value": "v1"}, runtime=ANN)
        after = asyncio.create_task(read(made, ANN, "slow_get"))
        await store.halfway.wait()  # the second read reached the server too
        store.go_on.set()
        assert (await before, await after) == (("v0", False), ("v1", False))
        assert await read(made, ANN, "slow_get") == ("v1", True)
    assert store.calls["slow_get"] == 2


async def test_a_read_during_the_write_is_fresh_and_does_not_outlive_it(bridge: Bridge, store: Store) -> None:
    """The entry is gone as soon as the write is sent (invalidated before), and what a read
    stores while the write runs is gone when it ends (invalidated after)."""
    async with bridge() as made:
        assert [await read(made, ANN) for _ in range(2)] == [("v0", False), ("v0", True)]
        writing = asyncio.create_task(call(made, "slow_put", {"key": "k", "value": "v1"}, runtime=ANN))
        await store.halfway.wait()
        assert await read(made, ANN) == ("v1", False)
        store.values["k"] = "v2"  # the write goes on changing things
        store.go_on.set()
        await writing
        assert await read(made, ANN) == ("v2", False)
    assert store.calls["get"] == 3


async def test_a_write_that_fails_still_invalidates(bridge: Bridge, store: Store) -> None:
    async with bridge() as made:
        await read(made, ANN)
        failed = await call(made, "put_and_fail", {"key": "k", "value": "v1"}, runtime=ANN)
        assert failed.status == "error"
        assert await read(made, ANN) == ("v1", False)

        [cache] = mcpbridge_cache.interceptors_of(made)
        [put] = [t.binding.tool for t in await made.list_tools() if t.binding.tool.name == "put"]

        async def broken(request: ToolCallRequest) -> Any:
            store.values["k"] = "v2"
            raise ConnectionError("the server went away after writing")

        with pytest.raises(ConnectionError):
            await cache(ToolCallRequest("put", {"key": "k", "value": "v2"}, "s", tool=put, runtime=ANN), broken)
        assert await read(made, ANN) == ("v2", False)


async def test_a_caller_without_identity_invalidates_the_whole_server(bridge: Bridge, store: Store) -> None:
    """Whose entries it changed is unknown, so nobody keeps theirs."""
    async with bridge() as made:
        for who in (ANN, BOB):
            await read(made, who)
        await call(made, "put", {"key": "k", "value": "v1"})
        assert [await read(made, who) for who in (ANN, BOB)] == [("v1", False), ("v1", False)]


async def test_reads_and_calls_of_servers_without_rules_invalidate_nothing(store: Store) -> None:
    other = Store()
    settings = {"rules": [{"server": "s"}]}
    async with MCPBridge(
        {"s": state_server(store), "t": state_server(other)},
        plugins=[mcpbridge_cache],
        plugin_settings={"cache": settings},
        tool_name_prefix=True,
    ) as made:
        tools = {(t.binding.server_name, t.binding.tool.name): t for t in await made.list_tools()}

        async def invoke(server: str, tool: str, args: dict[str, Any]) -> Any:
            return await tools[server, tool].ainvoke({"type": "tool_call", "name": "x", "args": args, "id": "1"})

        await invoke("s", "get", {"key": "k"})
        await invoke("t", "put", {"key": "k", "value": "v1"})
        await invoke("s", "get", {"key": "k"})  # a read of s invalidates nothing either
        hit = await invoke("s", "get", {"key": "k"})
    assert cache_entries(hit)[0]["hit"] is True
    assert store.calls["get"] == 1
