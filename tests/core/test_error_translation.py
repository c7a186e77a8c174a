"""What the SDK and the transports raise comes out as the documented types of the error tree,
the same on stdio and HTTP (one translator, `mcpbridge._session.translate`): a server's error
answer to a tool call is an error result, once, and then an error ToolMessage (raised as
`MCPToolError` for plain arguments); its error answer to any other request a
`ServerRequestError`; a malformed answer an error result; our own time limit a
`ToolTimeoutError`; a transport that ended a `ServerConnectionError`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import (
    MCPBridge,
    MCPToolError,
    ServerConnectionError,
    ServerRequestError,
    ToolCallError,
    ToolTimeoutError,
)
from mcpbridge.testing import serve_http, serving
from tests.conftest import stdio_config
from tests.servers import raw_jsonrpc


@pytest.fixture(params=["stdio", "http"])
def raw(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    if request.param == "stdio":
        yield stdio_config("tests.servers.raw_jsonrpc", mode="legacy")
        return
    with serving(raw_jsonrpc.http_app()) as url:
        yield {"url": url, "mode": "legacy"}


async def tools_of(bridge: MCPBridge) -> dict[str, Any]:
    return {tool.name: tool for tool in await bridge.list_tools()}


def call(tool: Any, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_call", "name": tool.name, "args": args, "id": "call-1"}


async def test_a_server_error_is_an_error_result_then_an_error_tool_message(raw: dict[str, Any]) -> None:
    seen: list[Any] = []

    async def record(request: Any, handler: Any) -> Any:
        seen.append(await handler(request))
        return seen[-1]

    async with MCPBridge({"raw": raw}, plugins=[], interceptors=[record]) as bridge:
        limited = (await tools_of(bridge))["rate_limited"]
        message = await limited.ainvoke(call(limited, {}))
        with pytest.raises(MCPToolError) as raised:
            await limited.ainvoke({})
    words = "MCP server 'raw' answered the call to 'rate_limited' with an error: rate limited: try again in 1 s"
    assert [result.is_error for result in seen] == [True, True]  # what the interceptors see: a result
    assert isinstance(message, ToolMessage)
    assert (message.status, message.content) == ("error", [{"type": "text", "text": f"{words} (code -32000)"}])
    assert str(raised.value) == f"{words} (code -32000)"
    assert raised.value.result is seen[1]


async def test_a_malformed_answer_is_an_error_result(raw: dict[str, Any]) -> None:
    async with MCPBridge({"raw": raw}, plugins=[]) as bridge:
        broken = (await tools_of(bridge))["content_not_list"]
        message = await broken.ainvoke(call(broken, {}))
    assert message.status == "error"
    assert "MCP server 'raw' returned a malformed result for 'content_not_list': content" in message.content[0]["text"]


async def test_a_server_error_to_another_request_is_a_server_request_error(raw: dict[str, Any]) -> None:
    async with MCPBridge({"raw": raw}, plugins=[]) as bridge:
        with pytest.raises(ServerRequestError, match="'raw' answered prompts/list with an error") as raised:
            await bridge.request("raw", "prompts/list", lambda session: session.list_prompts())
    assert raised.value.code == -32601
    assert not isinstance(raised.value, ToolCallError)


async def test_our_own_time_limit_is_a_tool_timeout_error(raw: dict[str, Any]) -> None:
    async with MCPBridge({"raw": raw}, plugins=[], timeout=0.3) as bridge:
        slow = (await tools_of(bridge))["slow"]
        with pytest.raises(ToolTimeoutError, match="'slow' on server 'raw' timed out after 0.3 s") as raised:
            await slow.ainvoke({"seconds": 2})
    assert isinstance(raised.value, TimeoutError)


async def test_a_dead_stdio_transport_is_a_server_connection_error() -> None:
    async with MCPBridge({"basic": stdio_config()}, plugins=[]) as bridge:
        die = (await tools_of(bridge))["die"]
        with pytest.raises(ServerConnectionError, match="'die' on server 'basic' is unreachable: .*code 3") as raised:
            await die.ainvoke({})
    assert isinstance(raised.value, ConnectionError)


async def test_a_dead_http_transport_is_a_server_connection_error() -> None:
    served = serve_http(raw_jsonrpc.http_app())
    async with MCPBridge({"raw": {"url": served.url, "mode": "legacy"}}, plugins=[], timeout=10) as bridge:
        echo = (await tools_of(bridge))["echo"]
        await asyncio.to_thread(served.stop)
        with pytest.raises(ServerConnectionError, match="'echo' on server 'raw' is unreachable") as raised:
            await echo.ainvoke({"text": "hi"})
    assert isinstance(raised.value, ConnectionError)


def test_handle_transport_errors_is_one_setting_per_server() -> None:
    servers = {"a": {"command": "x"}, "b": {"command": "x", "handle_transport_errors": False}}
    settings = MCPBridge(servers, plugins=[], handle_transport_errors=True).settings
    assert [settings.server_handle_transport_errors(name) for name in "ab"] == [True, False]
