"""langchain-mcp-adapters' interceptor behaviours (tests/test_interceptors.py there, and the
agent with a Command interceptor of tests/test_tools.py), against the drop-in: interceptors
written for langchain-mcp-adapters (mcp 1.x names on results) run unchanged."""

from __future__ import annotations

from typing import Any, NotRequired

import pytest
from langchain.agents import AgentState
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.types import Command
from mcp.types import CallToolResult, TextContent
from mcpbridge_adapters.interceptors import MCPToolCallRequest, MCPToolCallResult
from mcpbridge_adapters.tools import load_mcp_tools

from mcpbridge.testing import make_agent, tool_call_turn


async def _add_tool(url: str, *interceptors: Any, **options: Any) -> Any:
    tools = await load_mcp_tools(
        None, connection={"url": url, "transport": "streamable_http"}, tool_interceptors=list(interceptors), **options
    )
    return next(tool for tool in tools if tool.name == "add")


def _texts(content: Any) -> list[str]:
    return [block["text"] for block in content if block["type"] == "text"]


async def test_interceptor_modifies_arguments(math_url: str) -> None:
    async def double(request: MCPToolCallRequest, handler: Any) -> MCPToolCallResult:
        return await handler(request.override(args={k: v * 2 for k, v in request.args.items()}))

    assert _texts(await (await _add_tool(math_url, double)).ainvoke({"a": 2, "b": 3})) == ["10"]


async def test_interceptor_modifies_tool_name(math_url: str) -> None:
    async def redirect(request: MCPToolCallRequest, handler: Any) -> MCPToolCallResult:
        return await handler(request.override(name="multiply") if request.name == "add" else request)

    assert _texts(await (await _add_tool(math_url, redirect)).ainvoke({"a": 5, "b": 2})) == ["10"]


async def test_interceptor_modifies_result_with_mcp_1x_names(math_url: str) -> None:
    seen: list[Any] = []

    async def modify(request: MCPToolCallRequest, handler: Any) -> CallToolResult:
        result = await handler(request)
        seen.append((result.isError, result.structuredContent))
        content = [
            TextContent(type="text", text=f"Modified: {c.text}") if isinstance(c, TextContent) else c
            for c in result.content
        ]
        return CallToolResult(content=content, isError=result.isError)

    assert _texts(await (await _add_tool(math_url, modify)).ainvoke({"a": 2, "b": 3})) == ["Modified: 5"]
    assert seen == [(False, {"result": 5})]


async def test_interceptor_returns_custom_result(math_url: str) -> None:
    async def custom(request: MCPToolCallRequest, handler: Any) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="Custom tool response")], isError=False)

    assert _texts(await (await _add_tool(math_url, custom)).ainvoke({"a": 2, "b": 3})) == ["Custom tool response"]


async def test_interceptor_error_result_follows_handle_tool_errors(math_url: str) -> None:
    async def refuse(request: MCPToolCallRequest, handler: Any) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="not today")], isError=True)

    call = {"args": {"a": 1, "b": 1}, "id": "c1", "type": "tool_call"}
    message = await (await _add_tool(math_url, refuse)).ainvoke(call)
    assert (message.status, _texts(message.content)) == ("error", ["not today"])
    with pytest.raises(Exception, match="not today"):
        await (await _add_tool(math_url, refuse, handle_tool_errors=False)).ainvoke(call)


async def test_interceptor_caching(math_url: str) -> None:
    cache: dict[str, Any] = {}
    calls = 0

    async def caching(request: MCPToolCallRequest, handler: Any) -> MCPToolCallResult:
        nonlocal calls
        key = f"{request.name}:{request.args}"
        if key not in cache:
            calls += 1
            cache[key] = await handler(request)
        return cache[key]

    add = await _add_tool(math_url, caching)
    assert _texts(await add.ainvoke({"a": 2, "b": 3})) == ["5"]
    assert _texts(await add.ainvoke({"a": 2, "b": 3})) == ["5"]
    assert calls == 1
    assert _texts(await add.ainvoke({"a": 5, "b": 7})) == ["12"]
    assert calls == 2


async def test_multiple_interceptors_compose_first_outermost(math_url: str) -> None:
    order: list[str] = []

    def logging(name: str) -> Any:
        async def interceptor(request: MCPToolCallRequest, handler: Any) -> MCPToolCallResult:
            order.append(f"before_{name}")
            result = await handler(request)
            order.append(f"after_{name}")
            return result

        return interceptor

    assert _texts(await (await _add_tool(math_url, logging("1"), logging("2"))).ainvoke({"a": 2, "b": 3})) == ["5"]
    assert order == ["before_1", "before_2", "after_2", "after_1"]


async def test_interceptor_exception_propagates(math_url: str) -> None:
    async def failing(request: MCPToolCallRequest, handler: Any) -> MCPToolCallResult:
        raise ValueError("Interceptor failed")

    with pytest.raises(ValueError, match="Interceptor failed"):
        await (await _add_tool(math_url, failing)).ainvoke({"a": 2, "b": 3})


async def test_interceptor_returns_tool_message(math_url: str) -> None:
    async def answer(request: MCPToolCallRequest, handler: Any) -> ToolMessage:
        return ToolMessage(content="Custom ToolMessage response", name=request.name, tool_call_id="test-call-id")

    add = await _add_tool(math_url, answer)
    result = await add.ainvoke({"args": {"a": 2, "b": 3}, "id": "test-call-id", "type": "tool_call"})
    assert isinstance(result, ToolMessage)
    assert (result.content, result.name, result.tool_call_id) == ("Custom ToolMessage response", "add", "test-call-id")


async def test_interceptor_sees_the_request_fields(math_url: str) -> None:
    seen: list[Any] = []

    async def look(request: MCPToolCallRequest, handler: Any) -> MCPToolCallResult:
        seen.append((request.name, request.args, request.server_name, request.headers, request.tool_call_id))
        return await handler(request.override(headers={"X-Tenant": "acme"}))

    tools = await load_mcp_tools(
        None, connection={"url": math_url, "transport": "http"}, server_name="math", tool_interceptors=[look]
    )
    add = next(tool for tool in tools if tool.name == "add")
    assert _texts(await add.ainvoke({"a": 1, "b": 2})) == ["3"]
    message = await add.ainvoke({"args": {"a": 2, "b": 2}, "id": "c9", "type": "tool_call"})
    assert (message.tool_call_id, _texts(message.content)) == ("c9", ["4"])
    assert seen[1:] == [("add", {"a": 2, "b": 2}, "math", None, "c9")]
    assert seen[0][:4] == ("add", {"a": 1, "b": 2}, "math", None)


class CounterState(AgentState):  # type: ignore[type-arg]
    counter: NotRequired[int]


async def test_agent_with_a_command_interceptor(math_url: str) -> None:
    async def counter(request: MCPToolCallRequest, handler: Any) -> Command[Any]:
        assert request.runtime.tool_call_id == "call-1"
        return Command(
            update={
                "counter": 42,
                "messages": [
                    ToolMessage(content="Counter updated!", tool_call_id=request.runtime.tool_call_id),
                    AIMessage(content="hello"),
                ],
            },
            goto="__end__",
        )

    add = await _add_tool(math_url, counter)
    agent = make_agent([tool_call_turn(("add", {"a": 1, "b": 1}))], [add], state_schema=CounterState)
    result = await agent.ainvoke(
        {"messages": [HumanMessage("count")], "counter": 0}, {"configurable": {"thread_id": "t1"}}
    )
    assert result["counter"] == 42
    assert any(isinstance(m, ToolMessage) and m.content == "Counter updated!" for m in result["messages"])


async def test_agent_calls_the_tools(math_url: str) -> None:
    add = await _add_tool(math_url)
    agent = make_agent([tool_call_turn(("add", {"a": 20, "b": 22}))], [add])
    result = await agent.ainvoke({"messages": [HumanMessage("add")]}, {"configurable": {"thread_id": "t2"}})
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert (message.tool_call_id, message.status, _texts(message.content)) == ("call-1", "success", ["42"])
    assert message.artifact == {"structured_content": {"result": 42}}
