"""The interceptor contract: order, override, short-circuit, retry, results, errors."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.types import Command
from mcp.types import CallToolResult, TextContent

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest, ValueSource, compose, hookimpl
from tests.servers import basic


def call(tool: Any, args: dict[str, Any], id: str = "call-1") -> dict[str, Any]:
    return {"type": "tool_call", "name": tool.name, "args": args, "id": id}


async def echo_tool(interceptors: list[Any]) -> Any:
    bridge = MCPBridge({"basic": basic.build()}, plugins=[], interceptors=interceptors)
    tools = {t.name: t for t in await bridge.list_tools()}
    return bridge, tools["echo"]


async def test_first_interceptor_is_outermost() -> None:
    trace: list[str] = []

    def tracer(label: str) -> Any:
        async def interceptor(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            trace.append(f"{label}:before")
            result = await handler(request)
            trace.append(f"{label}:after")
            return result

        return interceptor

    bridge, echo = await echo_tool([tracer("a"), tracer("b"), tracer("c")])
    await echo.ainvoke({"text": "x"})
    await bridge.aclose()
    assert trace == ["a:before", "b:before", "c:before", "c:after", "b:after", "a:after"]


async def test_override_changes_args_and_refuses_read_only_fields() -> None:
    request = ToolCallRequest(name="echo", args={"text": "a"}, server_name="basic")
    changed = request.override(args={"text": "b"}, headers={"x": "1"})
    assert (changed.args, changed.headers, request.args) == ({"text": "b"}, {"x": "1"}, {"text": "a"})
    for field in ("server_name", "tool", "runtime"):
        with pytest.raises(AttributeError, match=f"ToolCallRequest.{field} is read-only"):
            request.override(**{field: None})
    with pytest.raises(AttributeError):
        request.name = "other"  # type: ignore[misc]

    async def shout(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(args={"text": request.args["text"].upper()}))

    bridge, echo = await echo_tool([shout])
    assert (await echo.ainvoke({"text": "hey"}))[0]["text"] == "HEY"
    await bridge.aclose()


async def test_short_circuit_never_reaches_the_server() -> None:
    basic.CALLS.clear()

    async def cached(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return CallToolResult(content=[TextContent(type="text", text="from interceptor")])

    bridge, echo = await echo_tool([cached])
    message = await echo.ainvoke(call(echo, {"text": "x"}))
    await bridge.aclose()
    assert message.content[0]["text"] == "from interceptor"
    assert basic.CALLS.get("echo", 0) == 0


async def test_handler_can_be_called_twice() -> None:
    basic.CALLS.clear()

    async def twice(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        await handler(request)
        return await handler(request)

    bridge, echo = await echo_tool([twice])
    await echo.ainvoke({"text": "x"})
    await bridge.aclose()
    assert basic.CALLS["echo"] == 2


async def test_tool_message_and_command_results_reach_the_agent_as_is() -> None:
    async def message(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return ToolMessage("made here", tool_call_id="")

    bridge, echo = await echo_tool([message])
    result = await echo.ainvoke(call(echo, {"text": "x"}, "id-9"))
    assert (result.content, result.tool_call_id) == ("made here", "id-9")
    await bridge.aclose()

    command = Command(update={"note": "set by interceptor"})

    async def commanding(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return command

    bridge, echo = await echo_tool([commanding])
    assert await echo.ainvoke(call(echo, {"text": "x"})) is command
    await bridge.aclose()


async def test_interceptor_exceptions_keep_their_type() -> None:
    class Refused(Exception):
        pass

    async def refuse(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        raise Refused("no")

    bridge, echo = await echo_tool([refuse])
    with pytest.raises(Refused):
        await echo.ainvoke(call(echo, {"text": "x"}))
    await bridge.aclose()


async def test_class_interceptors_and_observers() -> None:
    events: list[tuple[str, dict[str, Any]]] = []

    class Listener:
        async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            return await handler(
                request.override(observers=(*request.observers, lambda e, d: events.append((e, dict(d)))))
            )

    async def noting(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        request.notify("noting.seen", tool=request.name)
        request.artifact.append({"type": "noting", "ok": True})
        return await handler(request)

    bridge, echo = await echo_tool([Listener(), noting])
    message = await echo.ainvoke(call(echo, {"text": "x"}))
    await bridge.aclose()
    assert events == [("noting.seen", {"tool": "echo"})]
    assert {"type": "noting", "ok": True} in message.artifact


async def test_compose_without_interceptors_is_the_terminal() -> None:
    async def terminal(request: ToolCallRequest) -> str:
        return "t"

    assert compose([], terminal) is terminal


async def test_plugins_release_what_they_hold_when_the_bridge_closes() -> None:
    class Holder:
        closed = 0

        async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            return await handler(request)

    class Holding:
        """A plugin object made per bridge keeps what it must release."""

        mcpbridge_name = "holding"

        def __init__(self) -> None:
            self.holder = Holder()

        @hookimpl
        def mcpbridge_interceptors(self) -> list[Any]:
            return [self.holder]

        @hookimpl
        def mcpbridge_teardown(self) -> Awaitable[None]:
            async def close() -> None:
                self.holder.closed += 1

            return close()

    bridge = MCPBridge({"basic": basic.build()}, plugins=[Holding()])
    [holder, _claiming] = bridge.interceptors
    assert isinstance(holder, Holder)
    for _ in range(2):  # closed each time; usable again after reopening
        async with bridge:
            await {t.name: t for t in await bridge.list_tools()}["echo"].ainvoke({"text": "x"})
    assert holder.closed == 2


def test_a_value_source_walks_mappings_and_attributes() -> None:
    from mcpbridge.testing import make_runtime

    runtime = make_runtime({"user": {"id": "u1"}}, state={"n": 0}, config={"configurable": {"tenant": "t"}})
    request = ToolCallRequest("t", {}, "s", runtime=runtime)

    def read(source: str, request: ToolCallRequest = request) -> Any:
        return ValueSource.parse(source).read(request)

    assert read("context.user.id") == "u1"
    assert read("state.n") == 0
    assert read("config.configurable.tenant") == "t"
    assert read("context.missing") is None
    assert read("context.user", ToolCallRequest("t", {}, "s")) is None
