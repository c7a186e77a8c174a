"""The examples of langchain-mcp-adapters 0.3.2's README, run with only the import changed
(`langchain_mcp_adapters` → `mcpbridge_adapters`), against real servers (tests/adapters/
servers.py: its math and weather servers, over stdio and streamable HTTP) and with a
scripted model where the README names an OpenAI one. Two changes the mcp SDK asks of the
examples, not the drop-in: mcp 2.x names the streamable HTTP client `streamable_http_client`
(it yields two streams), and `FastMCP` servers are `MCPServer`s. The README shows no code for
interceptors, callbacks, prompts and resources: those tests follow its API reference."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import ToolException
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcpbridge_adapters.callbacks import Callbacks
from mcpbridge_adapters.client import MultiServerMCPClient
from mcpbridge_adapters.interceptors import MCPToolCallRequest
from mcpbridge_adapters.prompts import load_mcp_prompt
from mcpbridge_adapters.resources import load_mcp_resources
from mcpbridge_adapters.tools import load_mcp_tools

from mcpbridge.testing import ScriptedChatModel, serving, tool_call_turn
from tests.adapters import servers
from tests.helpers import ROOT

MATH = ["-m", "tests.adapters.servers", "math"]  # the README's "/path/to/math_server.py"


@pytest.fixture(scope="module")
def weather_url() -> Iterator[str]:
    with serving(servers.weather()) as url:
        yield url


def math_model() -> ScriptedChatModel:
    """What gpt-4.1 would do with "what's (3 + 5) x 12?"."""
    return ScriptedChatModel(
        turns=[tool_call_turn(("add", {"a": 3, "b": 5})), tool_call_turn(("multiply", {"a": 8, "b": 12}))]
    )


def weather_model() -> ScriptedChatModel:
    return ScriptedChatModel(turns=[tool_call_turn(("get_weather", {"location": "nyc"}))])


def tool_texts(response: dict[str, Any]) -> list[str]:
    return [
        block["text"]
        for message in response["messages"]
        if isinstance(message, ToolMessage)
        for block in message.content
        if isinstance(block, dict) and block["type"] == "text"
    ]


async def test_quickstart_client_session_over_stdio() -> None:
    server_params = StdioServerParameters(command=sys.executable, args=MATH, cwd=str(ROOT))
    async with stdio_client(server_params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await load_mcp_tools(session)
        agent = create_agent(math_model(), tools)
        agent_response = await agent.ainvoke({"messages": "what's (3 + 5) x 12?"})
    assert tool_texts(agent_response) == ["8", "96"]


async def test_multiple_servers_stdio_and_http(weather_url: str) -> None:
    client = MultiServerMCPClient(
        {
            "math": {"command": sys.executable, "args": MATH, "cwd": str(ROOT), "transport": "stdio"},
            "weather": {"url": weather_url, "transport": "http"},
        }
    )
    tools = await client.get_tools()
    math_response = await create_agent(math_model(), tools).ainvoke({"messages": "what's (3 + 5) x 12?"})
    weather_response = await create_agent(weather_model(), tools).ainvoke({"messages": "what is the weather in nyc?"})
    assert tool_texts(math_response) == ["8", "96"]
    assert tool_texts(weather_response) == ["It's always sunny in nyc"]
    await client.aclose()


async def test_client_session_then_load_mcp_tools() -> None:
    client = MultiServerMCPClient(
        {"math": {"command": sys.executable, "args": MATH, "cwd": str(ROOT), "transport": "stdio"}}
    )
    async with client.session("math") as session:
        tools = await load_mcp_tools(session)
    assert {tool.name for tool in tools} == {"add", "multiply"}
    assert tool_texts(await create_agent(math_model(), tools).ainvoke({"messages": "(3 + 5) x 12?"})) == ["8", "96"]
    await client.aclose()


async def test_streamable_http(weather_url: str) -> None:
    with serving(servers.math()) as url:
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = await load_mcp_tools(session)
            math_response = await create_agent(math_model(), tools).ainvoke({"messages": "what's (3 + 5) x 12?"})
        assert tool_texts(math_response) == ["8", "96"]
        client = MultiServerMCPClient({"math": {"transport": "http", "url": url}})
        tools = await client.get_tools()
        math_response = await create_agent(math_model(), tools).ainvoke({"messages": "what's (3 + 5) x 12?"})
        assert tool_texts(math_response) == ["8", "96"]
        await client.aclose()


async def test_runtime_headers(weather_url: str) -> None:
    client = MultiServerMCPClient(
        {
            "weather": {
                "transport": "http",
                "url": weather_url,
                "headers": {"Authorization": "Bearer YOUR_TOKEN", "X-Custom-Header": "custom-value"},
            }
        }
    )
    tools = await client.get_tools()
    model = ScriptedChatModel(turns=[tool_call_turn(("whoami", {}))])
    response = await create_agent(model, tools).ainvoke({"messages": "who am I?"})
    assert tool_texts(response) == ["Bearer YOUR_TOKEN custom-value"]
    await client.aclose()


async def test_tool_error_handling(behaviours_url: str) -> None:
    client = MultiServerMCPClient({"b": {"url": behaviours_url, "transport": "http"}})
    tools = {tool.name: tool for tool in await client.get_tools()}  # handle_tool_errors=True by default
    message = await tools["lookup"].ainvoke({"args": {"param1": "x"}, "id": "1", "type": "tool_call"})
    assert (message.status, message.content[0]["text"]) == ("error", "project not found")
    raising = MultiServerMCPClient({"b": {"url": behaviours_url, "transport": "http"}}, handle_tool_errors=False)
    [tool] = [t for t in await raising.get_tools() if t.name == "lookup"]
    with pytest.raises(ToolException, match="project not found"):
        await tool.ainvoke({"args": {"param1": "x"}, "id": "1", "type": "tool_call"})
    async with client.session("b") as session:
        tools = {tool.name: tool for tool in await load_mcp_tools(session, handle_tool_errors=False)}
    with pytest.raises(ToolException, match="project not found"):
        await tools["lookup"].ainvoke({"args": {"param1": "x"}, "id": "1", "type": "tool_call"})
    for opened in (client, raising):
        await opened.aclose()


async def test_langgraph_state_graph_with_tool_node(weather_url: str) -> None:
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    model = math_model()
    client = MultiServerMCPClient(
        {
            "math": {"command": sys.executable, "args": MATH, "cwd": str(ROOT), "transport": "stdio"},
            "weather": {"url": weather_url, "transport": "http"},
        }
    )
    tools = await client.get_tools()

    def call_model(state: MessagesState) -> dict[str, Any]:
        response = model.bind_tools(tools).invoke(state["messages"])
        return {"messages": response}

    builder = StateGraph(MessagesState)
    builder.add_node(call_model)
    builder.add_node(ToolNode(tools))
    builder.add_edge(START, "call_model")
    builder.add_conditional_edges("call_model", tools_condition)
    builder.add_edge("tools", "call_model")
    graph = builder.compile()
    math_response = await graph.ainvoke({"messages": "what's (3 + 5) x 12?"})
    assert tool_texts(math_response) == ["8", "96"]
    model.turns, model.position = weather_model().turns, 0
    weather_response = await graph.ainvoke({"messages": "what is the weather in nyc?"})
    assert tool_texts(weather_response) == ["It's always sunny in nyc"]
    await client.aclose()


async def test_interceptors(weather_url: str) -> None:
    seen: list[str] = []

    async def add_auth(request: MCPToolCallRequest, handler: Any) -> Any:
        seen.append(request.name)
        return await handler(request.override(headers={"Authorization": "Bearer per-call"}))

    client = MultiServerMCPClient({"weather": {"url": weather_url, "transport": "http"}}, tool_interceptors=[add_auth])
    tools = {tool.name: tool for tool in await client.get_tools()}
    assert [block["text"] for block in await tools["whoami"].ainvoke({})] == ["Bearer per-call -"]
    assert seen == ["whoami"]
    await client.aclose()


async def test_callbacks(behaviours_url: str) -> None:
    heard: list[tuple[str, Any, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None, context: Any) -> None:
        heard.append(("progress", progress, context.tool_name))

    async def on_logging_message(params: Any, context: Any) -> None:
        heard.append(("log", params.data, context.tool_name))

    client = MultiServerMCPClient(
        {"b": {"url": behaviours_url, "transport": "http"}},
        callbacks=Callbacks(on_progress=on_progress, on_logging_message=on_logging_message),
    )
    tools = {tool.name: tool for tool in await client.get_tools()}
    await tools["slow_count"].ainvoke({})
    assert ("log", "starting", "slow_count") in heard
    assert [entry for entry in heard if entry[0] == "progress"] == [
        ("progress", 1.0, "slow_count"),
        ("progress", 2.0, "slow_count"),
    ]
    await client.aclose()


async def test_prompts_and_resources(math_url: str) -> None:
    client = MultiServerMCPClient({"math": {"url": math_url, "transport": "http"}})
    [message] = await client.get_prompt("math", "configure_assistant", arguments={"skills": "math"})
    assert isinstance(message, AIMessage)
    assert "You have these skills: math" in message.content
    blobs = {str(blob.metadata["uri"]): blob.data for blob in await client.get_resources("math")}
    assert blobs == {"math://formulas": "E = mc^2", "math://table": b"binary data"}
    async with client.session("math") as session:
        assert (await load_mcp_prompt(session, "configure_assistant", arguments={"skills": "x"}))[0].content
        [formulas] = await load_mcp_resources(session, uris=["math://formulas"])
    assert formulas.data == "E = mc^2"
    await client.aclose()
