"""Past `max_catalog_tokens` the model is given the always-on tools and `find_tools`; what
it finds (BM25, no model call) is given from the next model call on, in that run only."""

from __future__ import annotations

import json
import math
from typing import Any

import mcpbridge_catalogue
import pytest
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from mcpbridge_catalogue import fixes
from mcpbridge_catalogue.search import Index

from mcpbridge import ConfigError, MCPBridge, Settings, ToolSelector
from mcpbridge.testing import tool_call_turn
from tests.plugins.catalogue import changing
from tests.plugins.catalogue.catalogue_support import CONFIG, Recorder, live_agent, text, tool_messages

BUDGET = 400


def estimate(tool: BaseTool | dict[str, Any]) -> int:
    """The documented estimate: the compact JSON of the tool as bound, in characters, / 4, rounded up."""
    bound = tool if isinstance(tool, dict) else convert_to_openai_tool(tool)
    return math.ceil(len(json.dumps(bound, separators=(",", ":"), ensure_ascii=False)) / 4)


def given(tools: list[BaseTool | dict[str, Any]], name: str) -> dict[str, Any]:
    """The tool `name` as a model request gave it, fitted to a provider (a dict)."""
    [found] = [tool for tool in tools if isinstance(tool, dict) and tool["function"]["name"] == name]
    return found


def many_bridge(**table: Any) -> MCPBridge:
    settings = Settings(servers={"many": {"server": changing.many(500)}}, plugins={"catalogue": table})
    return MCPBridge(settings=settings, plugins=[mcpbridge_catalogue])


async def test_past_the_budget_find_tools_finds_the_tool_and_it_is_given_and_runs() -> None:
    async with many_bridge(max_catalog_tokens=BUDGET, always_on=[{"tool": "tool_000"}]) as bridge:
        recorder = Recorder()
        turns = [
            tool_call_turn(("find_tools", {"query": "send a bank transfer"})),
            tool_call_turn(("wire_money", {"account": "A-1", "amount": 5})),
        ]
        result = await live_agent(bridge, turns, recorder).ainvoke({"messages": [("user", "pay A-1")]}, CONFIG)
        assert recorder.names(0) == ["tool_000", "find_tools"]
        assert recorder.names(1) == ["tool_000", "wire_money", "find_tools"]
        assert all(sum(map(estimate, tools)) <= BUDGET for tools in recorder.requests)
        messages = tool_messages(result)
        assert text(messages["find_tools"]).splitlines()[1].startswith("- wire_money: Send a bank transfer")
        assert (messages["wire_money"].status, text(messages["wire_money"])) == ("success", "sent 5 to A-1")

        other = Recorder()  # another thread of the same agent: nothing found there yet
        agent = live_agent(bridge, [], other)
        await agent.ainvoke({"messages": [("user", "hello")]}, {"configurable": {"thread_id": "other"}})
        assert other.names(0) == ["tool_000", "find_tools"]


async def test_what_was_found_last_is_given_first_when_all_do_not_fit() -> None:
    async with many_bridge(max_catalog_tokens=BUDGET) as bridge:
        recorder = Recorder()
        turns = [
            tool_call_turn(("find_tools", {"query": "calendar record"})),
            tool_call_turn(("find_tools", {"query": "wire money"})),
        ]
        await live_agent(bridge, turns, recorder).ainvoke({"messages": [("user", "go")]}, CONFIG)
    assert all(sum(map(estimate, tools)) <= BUDGET for tools in recorder.requests)
    assert "wire_money" in recorder.names(2)
    assert len(recorder.names(1)) > 2  # calendar tools, as many as fit


async def test_find_tools_refuses_a_missing_query_and_says_when_nothing_matches() -> None:
    async with many_bridge(max_catalog_tokens=BUDGET) as bridge:
        turns = [tool_call_turn(("find_tools", {})), tool_call_turn(("find_tools", {"query": "zebra"}))]
        recorder = Recorder()
        result = await live_agent(bridge, turns, recorder).ainvoke({"messages": [("user", "go")]}, CONFIG)
    found = [m for m in result["messages"] if m.type == "tool"]
    assert found[0].status == "error"
    assert "find_tools needs a `query`" in text(found[0])
    assert text(found[1]) == "No tool matches 'zebra': try other words."
    assert recorder.names(2) == ["find_tools"]


async def test_within_the_budget_every_tool_is_given_in_order_and_unchanged_tools_stay_identical() -> None:
    servers = {"b": {"server": changing.build()}, "a": {"server": changing.many(3)}}
    async with MCPBridge(servers, plugins=[mcpbridge_catalogue], tool_name_prefix=True) as bridge:
        recorder = Recorder()
        turns = [tool_call_turn(("b_echo", {"text": "hi"}))]
        await live_agent(bridge, turns, recorder, max_catalog_tokens=100_000).ainvoke(
            {"messages": [("user", "go")]}, CONFIG
        )
    first, second = recorder.requests
    assert recorder.names(0) == ["a_tool_000", "a_tool_001", "a_wire_money", "b_add", "b_change", "b_echo", "b_remove"]
    assert all(a is b for a, b in zip(first, second, strict=True))


async def test_a_provider_gets_fitted_schemas_the_same_dicts_each_call_and_the_server_still_checks() -> None:
    async with MCPBridge({"s": {"server": changing.build()}}, plugins=[mcpbridge_catalogue]) as bridge:
        recorder = Recorder()
        turns = [tool_call_turn(("echo", {"text": 3}))]
        result = await live_agent(bridge, turns, recorder, provider="gemini").ainvoke(
            {"messages": [("user", "go")]}, CONFIG
        )
        tools = {tool.name: tool for tool in await bridge.list_tools()}
    first, second = recorder.requests
    assert all(isinstance(a, dict) and a is b for a, b in zip(first, second, strict=True))
    parameters = convert_to_openai_tool(tools["echo"])["function"]["parameters"]
    assert given(first, "echo")["function"]["parameters"] == fixes.fitted_schema(parameters, "gemini")
    assert tool_messages(result)["echo"].status == "error"  # 3 is not a string: the server's schema says so


async def test_bad_arguments_name_the_setting() -> None:
    async with MCPBridge({"s": {"server": changing.build()}}, plugins=[mcpbridge_catalogue]) as bridge:
        with pytest.raises(ConfigError, match="LiveCatalogue: max_catalog_tokens: Input should be greater"):
            mcpbridge_catalogue.LiveCatalogue(bridge, max_catalog_tokens=-1)
        with pytest.raises(ConfigError, match="server 'x'"):
            mcpbridge_catalogue.LiveCatalogue(bridge, servers=["x"])
        assert mcpbridge_catalogue.LiveCatalogue(bridge, always_on=[ToolSelector(tool="echo")])


def test_the_search_ranks_by_bm25_and_keeps_the_catalogue_order_on_ties() -> None:
    index = Index(["create_issue Open an issue", "listIssues List the issues", "weather Today's weather", "b issue"])
    assert index.top("issues", 10) == [0, 1, 3]  # 0 and 1 tie: the catalogue order decides
    assert index.top("weather forecast", 10) == [2]
    assert index.top("nothing", 10) == []


async def test_a_servers_own_find_tools_runs_while_the_catalogue_fits() -> None:
    def find_tools(query: str) -> str:
        """The server's own search."""
        return f"the server searched {query}"

    server = changing.build()
    server.add_tool(find_tools)
    async with MCPBridge({"s": {"server": server}}, plugins=[mcpbridge_catalogue]) as bridge:
        turns = [tool_call_turn(("find_tools", {"query": "notes"}))]
        result = await live_agent(bridge, turns, Recorder()).ainvoke({"messages": [("user", "go")]}, CONFIG)
    assert text(tool_messages(result)["find_tools"]) == "the server searched notes"


async def test_a_schema_the_fixes_cannot_fit_is_given_as_listed(monkeypatch: pytest.MonkeyPatch) -> None:

    def unforeseen(schema: dict[str, Any], provider: str) -> dict[str, Any]:
        raise ValueError("a schema nobody foresaw")

    monkeypatch.setattr(fixes, "fitted_schema", unforeseen)
    async with MCPBridge({"s": {"server": changing.build()}}, plugins=[mcpbridge_catalogue]) as bridge:
        recorder = Recorder()
        turns = [tool_call_turn(("echo", {"text": "hi"}))]
        result = await live_agent(bridge, turns, recorder, provider="openai").ainvoke(
            {"messages": [("user", "go")]}, CONFIG
        )
        tools = {tool.name: tool for tool in await bridge.list_tools()}
    assert given(recorder.requests[0], "echo") == convert_to_openai_tool(tools["echo"])
    assert tool_messages(result)["echo"].status == "success"
