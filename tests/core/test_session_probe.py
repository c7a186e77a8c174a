"""`mcpbridge.testing.SessionProbe`: what a test sees of one server's session (open or not, a
tool change announced, until when the listing is fresh) and what it does to it (a call past
the interceptors, closing it to test a reconnect), read from the bridge as it is now."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest
from mcp.types import CallToolResult, TextContent

from mcpbridge import ConfigError, MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import SessionProbe
from tests.helpers import stdio_config
from tests.helpers.waiting import until
from tests.servers import hinting

HOUR_MS = 3_600_000


def pid_of(result: Any) -> int:
    return int(result.content[0]["text"])


async def test_an_unknown_server_is_named_with_the_known_ones() -> None:
    async with MCPBridge({"basic": stdio_config()}, plugins=[]) as bridge:
        with pytest.raises(ConfigError, match="unknown server 'nope'; configured servers: basic"):
            SessionProbe(bridge, "nope")


async def test_connected_follows_the_session_through_a_death_and_a_close() -> None:
    async with MCPBridge({"basic": stdio_config()}, plugins=[]) as bridge:
        session = SessionProbe(bridge, "basic")
        assert not session.connected, "no session is opened before it is needed"
        first = pid_of(await bridge.call_tool("basic", "pid"))
        assert session.connected
        os.kill(first, signal.SIGKILL)
        await until(lambda: not session.connected, "the bridge noticing the server's death")
        second = pid_of(await bridge.call_tool("basic", "pid"))
        assert second != first
        await session.close()
        assert not session.connected
        assert pid_of(await bridge.call_tool("basic", "pid")) not in (first, second)
        assert session.connected


async def test_tools_changed_until_they_are_listed_again() -> None:
    served = hinting.build()
    async with MCPBridge({"s": served.server}, plugins=[]) as bridge:
        session = SessionProbe(bridge, "s")
        await bridge.list_tools()
        assert not session.tools_changed
        await bridge.call_tool("s", "announce")
        await until(lambda: session.tools_changed, "tools/list_changed arriving")
        await bridge.list_tools()
        assert not session.tools_changed


async def test_the_listing_is_fresh_until_the_servers_hint_runs_out() -> None:
    servers = {"hinted": hinting.build(HOUR_MS).server, "plain": hinting.build().server}
    async with MCPBridge(servers, plugins=[], tool_name_prefix=True) as bridge:
        before = time.time()
        await bridge.list_tools()
        until_then = SessionProbe(bridge, "hinted").listing_fresh_until
        assert until_then is not None
        assert before + HOUR_MS / 1000 - 60 < until_then <= time.time() + HOUR_MS / 1000
        assert SessionProbe(bridge, "plain").listing_fresh_until is None


async def test_call_tool_goes_past_every_interceptor() -> None:
    seen: list[str] = []

    async def recording(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        seen.append(request.name)
        return await handler(request)

    async with MCPBridge({"basic": stdio_config()}, plugins=[], interceptors=[recording]) as bridge:
        [echo] = [tool for tool in await bridge.list_tools() if tool.name == "echo"]
        request = ToolCallRequest(name="echo", args={"text": "raw"}, server_name="basic", tool=echo.binding.tool)
        result = await SessionProbe(bridge, "basic").call_tool(request)
        assert isinstance(result, CallToolResult)
        assert result.content == [TextContent(text="raw")]
        assert seen == []
        await bridge.call_tool("basic", "echo", {"text": "through"})
        assert seen == ["echo"]
