"""Sync `invoke` and real LangGraph agents (async and sync) over the bridge."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import make_agent, tool_call_turn
from tests.helpers import stdio_config
from tests.servers import basic


@dataclass
class Context:
    user_id: str


def test_sync_invoke_from_plain_code() -> None:
    with MCPBridge({"basic": stdio_config()}, plugins=[]) as bridge:
        tools = {t.name: t for t in bridge.list_tools_sync()}
        assert tools["echo"].invoke({"text": "sync"})[0]["text"] == "sync"
        message = tools["get_forecast"].invoke(
            {"type": "tool_call", "name": "get_forecast", "args": {"city": "Rome"}, "id": "s1"}
        )
        assert message.status == "success"
        assert message.artifact[0]["data"]["city"] == "Rome"


async def test_sync_invoke_inside_a_running_loop() -> None:
    with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        echo = {t.name: t for t in bridge.list_tools_sync()}["echo"]
        assert echo.invoke({"text": "blocking"})[0]["text"] == "blocking"
        assert (await echo.ainvoke({"text": "across loops"}))[0]["text"] == "across loops"
    async with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        echo = {t.name: t for t in await bridge.list_tools()}["echo"]
        with pytest.raises(RuntimeError, match="would deadlock: use `await tool.ainvoke"):
            echo.invoke({"text": "x"})


def agent_for(tools: list[Any]) -> Any:
    turn = tool_call_turn(("echo", {"text": "hi"}), ("divide", {"a": 1, "b": 0}), ("get_forecast", {"city": "Oslo"}))
    return make_agent([turn], tools, context_schema=Context)


def check_run(result: dict[str, Any]) -> None:
    messages = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert [(m.name, m.status) for m in messages] == [
        ("echo", "success"),
        ("divide", "error"),
        ("get_forecast", "success"),
    ]
    assert "division by zero" in messages[1].content[0]["text"]
    assert messages[2].artifact[0]["type"] == "mcp_structured_content"


async def test_async_agent_gets_runtime_context_in_interceptors() -> None:
    seen: list[tuple[str, Any, str | None]] = []

    async def spy(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        seen.append((request.name, request.runtime.context, request.runtime.tool_call_id))
        return await handler(request)

    async with MCPBridge({"basic": basic.build()}, plugins=[], interceptors=[spy]) as bridge:
        agent = agent_for(await bridge.list_tools())
        result = await agent.ainvoke(
            {"messages": [("user", "go")]}, {"configurable": {"thread_id": "t"}}, context=Context("u7")
        )
    check_run(result)
    assert sorted(seen) == [
        ("divide", Context("u7"), "call-2"),
        ("echo", Context("u7"), "call-1"),
        ("get_forecast", Context("u7"), "call-3"),
    ]


def test_sync_agent_invoke() -> None:
    with MCPBridge({"basic": stdio_config()}, plugins=[]) as bridge:
        agent = agent_for(bridge.list_tools_sync())
        check_run(
            agent.invoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "t"}}, context=Context("u"))
        )


async def test_interrupt_in_an_interceptor_reaches_the_agent() -> None:
    from langgraph.types import Command, interrupt

    calls: list[str] = []

    async def ask(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        answer = interrupt({"question": f"run {request.name}?"})
        calls.append(answer)
        return await handler(request)

    async with MCPBridge({"basic": basic.build()}, plugins=[], interceptors=[ask]) as bridge:
        agent = make_agent([tool_call_turn(("echo", {"text": "hi"}))], await bridge.list_tools())
        config = {"configurable": {"thread_id": "i"}}
        paused = await agent.ainvoke({"messages": [("user", "go")]}, config)
        assert paused["__interrupt__"][0].value == {"question": "run echo?"}
        assert calls == []
        done = await agent.ainvoke(Command(resume="yes"), config)
    assert calls == ["yes"]
    assert [m.content[0]["text"] for m in done["messages"] if isinstance(m, ToolMessage)] == ["hi"]


async def test_bridge_from_another_thread_loop_is_reused() -> None:
    with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        tools = await asyncio.to_thread(bridge.list_tools_sync)
        assert any(t.name == "echo" for t in tools)
