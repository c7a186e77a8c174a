"""Protocol edges against a low-level server: paginated tool lists, malformed results,
list-changed notifications, and both protocol modes."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import mcp.types as types
import pytest
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context

from mcpbridge import MCPBridge, MCPToolError, ServerConnectionError
from mcpbridge.testing import SessionProbe, serving
from tests.helpers.waiting import until
from tests.servers import basic

SCHEMA = {"type": "object", "properties": {}}


def paginated_server() -> Server[Any]:
    names = [f"tool{i}" for i in range(7)]
    extra: list[str] = []

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        every = names + extra
        start = int(params.cursor) if params and params.cursor else 0
        page = every[start : start + 3]
        tools = [types.Tool(name=n, input_schema=SCHEMA) for n in page]
        tools += [
            types.Tool(
                name="shaped",
                input_schema=SCHEMA,
                output_schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            )
        ] * (start == 0)
        following = start + 3
        return types.ListToolsResult(tools=tools, next_cursor=str(following) if following < len(every) else None)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "shaped":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="{}")], structured_content={"n": "not a number"}
            )
        if params.name == "grow":
            extra.append("grown")
            await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])

    names.append("grow")
    return Server("paged", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.mark.parametrize("mode", ["legacy", "modern"])
async def test_follows_pagination(mode: str) -> None:
    async with MCPBridge({"paged": {"server": paginated_server(), "mode": mode}}, plugins=[]) as bridge:
        names = [t.name for t in await bridge.list_tools()]
    assert names == ["tool0", "tool1", "tool2", "shaped", "tool3", "tool4", "tool5", "tool6", "grow"]


async def test_malformed_structured_content_is_a_clear_error() -> None:
    async with MCPBridge({"paged": paginated_server()}, plugins=[]) as bridge:
        shaped = {t.name: t for t in await bridge.list_tools()}["shaped"]
        message = await shaped.ainvoke({"type": "tool_call", "name": "shaped", "args": {}, "id": "m"})
        assert message.status == "error"
        assert "server 'paged' returned a malformed result for 'shaped'" in message.content[0]["text"]
        with pytest.raises(MCPToolError, match="malformed result"):
            await shaped.ainvoke({})


async def test_list_changed_notification_relists_tools() -> None:
    async with MCPBridge({"paged": {"server": paginated_server(), "mode": "legacy"}}, plugins=[]) as bridge:
        grow = {t.name: t for t in await bridge.list_tools()}["grow"]
        await grow.ainvoke({})
        assert SessionProbe(bridge, "paged").tools_changed
        assert "grown" in {t.name for t in await bridge.list_tools()}


@pytest.mark.parametrize(
    ("mode", "version"), [("legacy", "2025-11-25"), ("modern", "2026-07-28"), ("auto", "2026-07-28")]
)
async def test_mode_picks_the_protocol(mode: str, version: str) -> None:
    async with MCPBridge({"basic": {"server": basic.build(), "mode": mode}}, plugins=[]) as bridge:
        session = await bridge.session("basic")
        assert session.protocol_version == version


async def test_endless_pagination_is_an_error_not_a_hang() -> None:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[], next_cursor="again")

    async with MCPBridge({"stuck": Server("stuck", on_list_tools=list_tools)}, plugins=[]) as bridge:
        with pytest.raises(ServerConnectionError, match="server 'stuck' is unreachable: .*more than 1000 pages"):
            await bridge.list_tools()


async def test_a_server_that_never_answers_hits_connect_timeout() -> None:
    silent = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"], "connect_timeout": 0.5}
    async with MCPBridge({"silent": silent}, plugins=[]) as bridge:
        with pytest.raises(
            ServerConnectionError, match=r"server 'silent' is unreachable: no answer within connect_timeout=0.5 s"
        ) as raised:
            await bridge.list_tools()
        assert raised.value.sent is False
        assert not SessionProbe(bridge, "silent").connected


@pytest.mark.parametrize("transport", ["inprocess", "http"])
async def test_modern_servers_announce_tool_changes(transport: str) -> None:
    server = basic.build()

    @server.tool()
    async def grow(ctx: Context) -> str:
        @server.tool()
        def grown() -> str:
            return "new"

        await ctx.notify_tools_changed()
        return "grew"

    with contextlib.ExitStack() as stack:
        if transport == "http":
            config: dict[str, Any] = {
                "url": stack.enter_context(serving(server)),
                "mode": "modern",
            }
        else:
            config = {"server": server}
        async with MCPBridge({"s": config}, plugins=[]) as bridge:
            tools = {t.name: t for t in await bridge.list_tools()}
            await tools["grow"].ainvoke({})
            await until(lambda: SessionProbe(bridge, "s").tools_changed, "tools/list_changed arriving")
            assert "grown" in {t.name for t in await bridge.list_tools()}
