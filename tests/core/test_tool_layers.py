"""One tool's chain holds only the interceptors with work for it: an interceptor's
`applies_to(server_name, tool)` is asked once per tool definition, and one that answers
False is never passed by that tool's calls (`tool.chain` names what is), on every transport."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest
from mcp.types import Tool

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest, hookimpl


def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args, "id": f"c-{name}"}


class OnlyFor:
    """An interceptor with work for one tool; it records the calls that pass it."""

    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.seen: list[str] = []
        self.asked: list[str] = []

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        self.asked.append(tool.name)
        return tool.name == self.tool

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        self.seen.append(request.name)
        return await handler(request)


class Selective:
    """A plugin object whose interceptor serves only `echo`."""

    mcpbridge_name = "selective"

    def __init__(self, interceptor: Any) -> None:
        self.interceptor = interceptor

    @hookimpl
    def mcpbridge_interceptors(self) -> list[Any]:
        return [self.interceptor]


async def test_an_interceptor_is_passed_only_by_the_tools_it_applies_to(any_server: dict[str, Any]) -> None:
    only_echo = OnlyFor("echo")
    passed: list[str] = []

    async def everywhere(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        passed.append(request.name)
        return await handler(request)

    bridge = MCPBridge({"s": any_server}, plugins=[Selective(only_echo)], interceptors=[everywhere])
    async with bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        echoed = await tools["echo"].ainvoke(call("echo", {"text": "hi"}))
        divided = await tools["divide"].ainvoke(call("divide", {"a": 6, "b": 3}))
        await bridge.list_tools()  # the same definitions: nobody is asked again
    assert "hi" in str(echoed.content)
    assert "2" in str(divided.content)
    assert only_echo.seen == ["echo"]
    assert passed == ["echo", "divide"]
    assert only_echo.asked.count("echo") == 1
    assert bridge.chain == ("selective", "interceptors", "claiming")
    assert tools["echo"].chain == ("selective", "interceptors", "claiming")
    assert tools["divide"].chain == ("interceptors", "claiming")
    # Tools with the same layers share one composed chain.
    assert tools["divide"].binding.handler is tools["die"].binding.handler
    assert tools["divide"].binding.handler is not tools["echo"].binding.handler


class Broken(OnlyFor):
    def applies_to(self, server_name: str, tool: Tool) -> bool:
        raise RuntimeError("no idea")


async def test_an_interceptor_whose_applies_to_fails_stays_on_the_chain(
    inprocess: Any, caplog: pytest.LogCaptureFixture
) -> None:
    broken = Broken("echo")
    async with MCPBridge({"s": {"server": inprocess}}, plugins=[Selective(broken)]) as bridge:
        with caplog.at_level(logging.WARNING, logger="mcpbridge"):
            tools = {tool.name: tool for tool in await bridge.list_tools()}
        await tools["divide"].ainvoke(call("divide", {"a": 1, "b": 1}))
    assert broken.seen == ["divide"]
    assert tools["divide"].chain == ("selective", "claiming")
    warned = [r.getMessage() for r in caplog.records if "applies_to" in r.getMessage()]
    assert warned
    assert "'selective'" in warned[0]
    assert "RuntimeError: no idea" in warned[0]


class AsTask:
    """An interceptor that returns an awaitable which is not a coroutine (a Task)."""

    def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return asyncio.ensure_future(handler(request))


async def test_an_interceptor_may_return_any_awaitable(inprocess: Any) -> None:
    async with MCPBridge({"s": {"server": inprocess}}, interceptors=[AsTask()], plugins=[]) as bridge:
        echo = {tool.name: tool for tool in await bridge.list_tools()}["echo"]
        message = await echo.ainvoke(call("echo", {"text": "awaited"}))
    assert "awaited" in str(message.content)


def test_an_interceptor_may_return_any_awaitable_on_another_loop(inprocess: Any) -> None:
    """The bridge's sessions live on its own loop thread; the call is awaited on another
    loop, and its interceptors still run on the bridge's loop."""
    threads: list[str] = []

    async def where(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        threads.append(threading.current_thread().name)
        return await handler(request)

    with MCPBridge({"s": {"server": inprocess}}, interceptors=[AsTask(), where], plugins=[]) as bridge:
        echo = {tool.name: tool for tool in bridge.list_tools_sync()}["echo"]
        message = asyncio.run(echo.ainvoke(call("echo", {"text": "from another loop"})))
    assert "from another loop" in str(message.content)
    assert threads == ["mcpbridge-loop"]
