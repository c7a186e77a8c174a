"""Tools over a `ClientSession` the user opened (the adapters' README: `stdio_client`, then
`load_mcp_tools(session)`) check their calls as mcpbridge's own tools do: a lone surrogate,
a value nested 300 deep or arguments that break the input schema are refused before the
session sees them (one lone surrogate used to end the user's session for every later call),
and so are values an interceptor puts in their place."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcpbridge_adapters.tools import load_mcp_tools

from mcpbridge import InvalidToolArguments, ToolCallHandler, ToolCallRequest
from tests.helpers import ROOT


def deep(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


@contextlib.asynccontextmanager
async def own_session() -> AsyncIterator[ClientSession]:
    """The user's own session to a stdio server, opened with the mcp SDK alone (in the test's
    task: the SDK's session must be closed in the task that opened it)."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "tests.servers.basic"], cwd=str(ROOT))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as opened:
        await opened.initialize()
        yield opened


async def echo_of(session: ClientSession, **options: Any) -> BaseTool:
    return next(tool for tool in await load_mcp_tools(session, **options) if tool.name == "echo")


async def call(tool: BaseTool, args: dict[str, Any]) -> ToolMessage:
    message: ToolMessage = await tool.ainvoke({"type": "tool_call", "name": tool.name, "args": args, "id": "c1"})
    return message


def text(message: ToolMessage) -> str:
    return "".join(block["text"] for block in message.content if isinstance(block, dict))


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"text": "x\ud800y"}, "text: cannot be sent as UTF-8 JSON (UnicodeEncodeError)"),
        ({"text": deep(300)}, "the value nests more than 64 levels deep, over max_argument_depth=64"),
        ({"text": 42}, 'text: 42 is not of type "string"'),
        ({}, '"text" is a required property'),
    ],
    ids=["lone-surrogate", "300-deep", "schema-invalid", "missing"],
)
async def test_refused_as_an_error_message_and_the_session_goes_on(args: dict[str, Any], problem: str) -> None:
    async with own_session() as session:
        echo = await echo_of(session)
        refused = await call(echo, args)
        assert refused.status == "error"
        assert text(refused) == f"Invalid arguments for tool 'echo': {problem}"
        assert text(await call(echo, {"text": "still here"})) == "still here"


async def test_refused_with_the_invalid_arguments_error_when_errors_are_not_handled() -> None:
    async with own_session() as session:
        echo = await echo_of(session, handle_tool_errors=False)
        with pytest.raises(ToolException, match="cannot be sent as UTF-8 JSON") as raised:
            await call(echo, {"text": "\udfff"})
        assert isinstance(raised.value.__cause__, InvalidToolArguments)
        assert text(await call(echo, {"text": "still here"})) == "still here"


async def test_what_an_interceptor_puts_in_their_place_is_checked_before_it_is_sent() -> None:
    async def replacing(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(args={"text": "x\ud800"}) if request.args["text"] == "swap" else request)

    async with own_session() as session:
        echo = await echo_of(session, tool_interceptors=[replacing])
        refused = await call(echo, {"text": "swap"})
        assert refused.status == "error"
        unsendable = "text: cannot be sent as UTF-8 JSON (UnicodeEncodeError)"
        assert text(refused) == f"Invalid arguments for tool 'echo': {unsendable}"
        assert text(await call(echo, {"text": "still here"})) == "still here"


@pytest.mark.serial  # it waits out a time limit
async def test_an_interceptors_time_limit_bounds_the_call() -> None:
    async def hurried(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(timeout=0.2))

    async with own_session() as session:
        tools = await load_mcp_tools(session, tool_interceptors=[hurried])
        slow = next(tool for tool in tools if tool.name == "slow")
        message = await call(slow, {"seconds": 60})
        assert message.status == "error"
        assert "MCP tool 'slow' on server 'unknown' timed out after 0.2 s" in text(message), message.content
