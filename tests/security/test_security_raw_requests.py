"""A raw request fails alone: a message that cannot travel as UTF-8 JSON (a lone surrogate),
sent without a tool's argument checks (`bridge.request`, a raw `session.call_tool` on the
bridge's shared session), is refused in its sender with an error naming the value at fault,
on every transport, while a bystander's call on the same session goes on and the session is
not reopened."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from mcp import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent

from mcpbridge import MCPBridge, ServerRequestError
from mcpbridge.testing import serve_http
from tests.helpers import stdio_config
from tests.helpers.waiting import until
from tests.servers import basic

BAD = {"text": "x\ud800y"}
REFUSAL = (
    "mcpbridge: a message for MCP server 's' cannot be sent as UTF-8 JSON (PydanticSerializationError); "
    "it was not sent (the value at params/arguments/text)"
)
BYSTANDER_S = 1.0
"""How long the bystander's call stays in flight: long enough to be under way when the bad
request is sent on most machines; the verdict does not depend on it."""


@pytest.fixture(params=["inproc", "stdio", "http", "sse"])
def server(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The basic server's config, on each transport."""
    if request.param == "inproc":
        yield {"server": basic.build()}
    elif request.param == "stdio":
        yield stdio_config()
    else:
        sse = request.param == "sse"
        served = serve_http(basic.build().sse_app() if sse else basic.build().streamable_http_app())
        yield {"url": served.base_url + ("/sse" if sse else "/mcp"), **({"transport": "sse"} if sse else {})}
        served.stop()


def echo(arguments: dict[str, Any]) -> Callable[[Any], Awaitable[CallToolResult]]:
    async def send(session: Any) -> CallToolResult:
        result: CallToolResult = await session.call_tool("echo", arguments)
        return result

    return send


def text(message: ToolMessage) -> str:
    return "".join(block["text"] for block in message.content if isinstance(block, dict))


async def through_request(bridge: MCPBridge) -> str:
    with pytest.raises(ServerRequestError) as refused:
        await bridge.request("s", "tools/call of 'echo'", echo(BAD))
    assert refused.value.code == INVALID_PARAMS
    return str(refused.value)


async def through_session(bridge: MCPBridge) -> str:
    with pytest.raises(MCPError) as refused:
        await echo(BAD)(await bridge.session("s"))
    assert refused.value.error.code == INVALID_PARAMS
    return refused.value.error.message


@pytest.mark.parametrize("door", [through_request, through_session], ids=["bridge.request", "session.call_tool"])
async def test_a_raw_request_that_cannot_be_sent_fails_alone(
    server: dict[str, Any], door: Callable[[MCPBridge], Awaitable[str]], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge")
    async with MCPBridge({"s": server}, plugins=[]) as bridge:
        session = await bridge.session("s")
        bystander = asyncio.ensure_future(bridge.call_tool("s", "slow", {"seconds": BYSTANDER_S}))
        await until(lambda: bool(bridge.calls_in_flight("s")), "the bystander's call in flight")

        assert REFUSAL in await door(bridge)

        waited: ToolMessage = await bystander
        assert (waited.status, text(waited)) == ("success", "done"), waited.content
        after = await bridge.request("s", "tools/call of 'echo'", echo({"text": "still here"}))
        assert isinstance(after.content[0], TextContent)
        assert after.content[0].text == "still here"
        assert await bridge.session("s") is session, "the shared session was reopened"
    broke = [r.getMessage() for r in caplog.records if "reconnect" in r.getMessage() or "broke" in r.getMessage()]
    assert not broke, broke
