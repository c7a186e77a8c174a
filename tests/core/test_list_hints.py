"""Listed tools honour the server's 2026-07-28 freshness hint (`ttlMs` on `tools/list`): held
while fresh, listed again once it ran out, at once after `tools/list_changed`, and held as
before when there is no hint (legacy protocol, `ttlMs: 0`) or a hostile one. The server
counts the `tools/list` requests that reach it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.client.caching import MAX_TTL_MS
from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server

from mcpbridge import MCPBridge
from mcpbridge.testing import SessionProbe, serving, stdio_config
from tests.helpers.waiting import until
from tests.servers import hinting

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

TTL_MS = 1500
HOUR_MS = 3_600_000
TRANSPORTS = ["inprocess", "stdio", "http"]


@contextmanager
def hinted(
    transport: str, tmp_path: Path, ttl_ms: int | None, mode: str = "modern"
) -> Iterator[tuple[dict[str, Any], Callable[[], int]]]:
    """The config of a `hinting` server over `transport`, and how many listings reached it."""
    if transport == "stdio":
        log = tmp_path / "listings.log"
        ttl = [] if ttl_ms is None else [str(ttl_ms)]
        yield stdio_config("tests.servers.hinting", str(log), *ttl, mode=mode), lambda: hinting.asked(log)
        return
    served = hinting.build(ttl_ms)
    if transport == "http":
        with serving(served.server) as url:
            yield {"url": url, "mode": mode}, lambda: served.asked
    else:
        yield {"server": served.server, "mode": mode}, lambda: served.asked


async def names(bridge: MCPBridge, **options: Any) -> set[str]:
    return {tool.name for tool in await bridge.list_tools(**options)}


async def announced(bridge: MCPBridge) -> None:
    """Wait until the connection heard `tools/list_changed` (it comes on its own stream)."""
    await until(lambda: SessionProbe(bridge, "s").tools_changed, "tools/list_changed arriving")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_held_while_fresh_then_listed_again(transport: str, tmp_path: Path) -> None:
    with hinted(transport, tmp_path, TTL_MS) as (config, asked):
        async with MCPBridge({"s": config}, plugins=[]) as bridge:
            first = await bridge.list_tools()
            listed_at = time.monotonic()
            assert asked() == 1
            await bridge.call_tool("s", "grow")  # the server changes without saying so
            assert "grown0" not in await names(bridge)
            assert asked() == 1, "a fresh listing is served without asking the server"
            await asyncio.sleep(TTL_MS / 1000 - (time.monotonic() - listed_at) + 0.1)
            again = await bridge.list_tools()
            assert asked() == 2
            assert {tool.name for tool in again} == {tool.name for tool in first} | {"grown0"}
            echo = next(tool for tool in again if tool.name == "echo")
            assert echo is next(tool for tool in first if tool.name == "echo"), "unchanged: same tool"
            await bridge.list_tools()
            assert asked() == 2


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_list_changed_lists_again_at_once(transport: str, tmp_path: Path) -> None:
    with hinted(transport, tmp_path, HOUR_MS) as (config, asked):
        async with MCPBridge({"s": config}, plugins=[]) as bridge:
            await bridge.list_tools()
            await bridge.call_tool("s", "announce")
            await announced(bridge)
            assert "grown0" in await names(bridge)
            assert asked() == 2
            await bridge.list_tools()
            assert asked() == 2, "the new listing is fresh for the server's ttl again"


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(("ttl_ms", "mode"), [(None, "modern"), (200, "legacy"), (0, "modern")])
async def test_without_a_hint_held_until_told(transport: str, tmp_path: Path, ttl_ms: int | None, mode: str) -> None:
    """No hint, a legacy session (whose answers carry none), or `ttlMs: 0` (what a server
    that sets no hint sends): held until `tools/list_changed` or `refresh`, as always."""
    with hinted(transport, tmp_path, ttl_ms, mode) as (config, asked):
        async with MCPBridge({"s": config}, plugins=[]) as bridge:
            await bridge.list_tools()
            await bridge.call_tool("s", "grow")
            await asyncio.sleep(0.3)
            assert "grown0" not in await names(bridge)
            assert asked() == 1
            assert "grown0" in await names(bridge, refresh=True)
            assert asked() == 2


async def test_refresh_asks_even_while_fresh(tmp_path: Path) -> None:
    with hinted("inprocess", tmp_path, HOUR_MS) as (config, asked):
        async with MCPBridge({"s": config}, plugins=[]) as bridge:
            await bridge.list_tools()
            await bridge.call_tool("s", "grow")
            assert "grown0" in await names(bridge, refresh=True)
            assert asked() == 2


async def test_an_absurd_ttl_is_clamped() -> None:
    served = hinting.build(10**15)
    async with MCPBridge({"s": served.server}, plugins=[]) as bridge:
        await bridge.list_tools()
        await bridge.list_tools()
        assert served.asked == 1
        expires = SessionProbe(bridge, "s").listing_fresh_until
        assert expires is not None
        assert expires <= time.time() + MAX_TTL_MS / 1000


@pytest.mark.parametrize("wire_ttl", [-5, 0])
async def test_a_negative_or_zero_ttl_holds_as_no_hint(wire_ttl: int) -> None:
    served = hinting.build(wire_ttl=wire_ttl)
    async with MCPBridge({"s": served.server}, plugins=[]) as bridge:
        assert "echo" in await names(bridge)
        await bridge.list_tools()
        assert served.asked == 1


@pytest.mark.parametrize("wire_ttl", ["soon", 1.5, None, {"ms": 5}])
async def test_a_malformed_ttl_is_no_hint(wire_ttl: object) -> None:
    """A server's malformed `ttlMs` fails the SDK's check of its whole answer: the page is read
    again without it, so the tools are listed, held as without a hint, and still callable."""
    served = hinting.build(wire_ttl=wire_ttl)
    async with MCPBridge({"s": served.server}, plugins=[]) as bridge:
        assert "echo" in await names(bridge)
        listed = served.asked
        await bridge.list_tools()
        assert served.asked == listed
        message = await bridge.call_tool("s", "echo", {"text": "still works"})
        assert message.content[0]["text"] == "still works"
        await bridge.call_tool("s", "grow")
        assert "grown0" in await names(bridge, refresh=True)


async def test_a_paged_listing_is_held_and_listed_again_as_one() -> None:
    """Only the first page carries the hint the SDK caches; the listing is held, and listed
    again, as a whole."""
    asked: list[str | None] = []

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        cursor = params.cursor if params else None
        asked.append(cursor)
        start = int(cursor or 0)
        tools = [types.Tool(name=f"t{i}", input_schema={"type": "object"}) for i in range(start, start + 2)]
        return types.ListToolsResult(tools=tools, next_cursor=str(start + 2) if start < 4 else None)

    server = Server("paged", on_list_tools=list_tools, cache_hints={"tools/list": CacheHint(ttl_ms=TTL_MS)})
    async with MCPBridge({"s": server}, plugins=[]) as bridge:
        assert len(await names(bridge)) == 6
        await bridge.list_tools()
        assert asked == [None, "2", "4"]
        await asyncio.sleep(TTL_MS / 1000 + 0.1)
        assert len(await names(bridge)) == 6
        assert asked == [None, "2", "4"] * 2
