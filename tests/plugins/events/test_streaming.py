"""The events on LangGraph's event-streaming protocol v2 (`astream_events(version="v3")`, what
langgraph-api runs for @langchain/react): the `custom` stream only with the plugin's
`stream_transformers()`, and an MCP error result reported as `tool-error` on the `tools`
channel by the lifecycle interceptor, as LangGraph reports a tool that raises. The browser
side is tests/e2e/test_react_tool_cards.py."""

from __future__ import annotations

from typing import Any

import mcpbridge_events
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from mcpbridge_events import EVENT_TYPE, LifecycleEvents, stream_transformers

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel

from .events_support import USER, ask, build_server

CALLS = (("get_forecast", {"city": "Oslo"}), ("divide", {"a": 1, "b": 0}))


def _agent(tools: Any, **options: Any) -> Any:
    model = ScriptedChatModel(turns=[ask(*CALLS)])
    return create_agent(model, tools, checkpointer=InMemorySaver(), **options)


async def _v3_events(graph: Any, thread: str, **options: Any) -> list[tuple[str, dict[str, Any]]]:
    run = await graph.astream_events(USER, {"configurable": {"thread_id": thread}}, version="v3", **options)
    async with run:
        return [
            (event["method"], event["params"]["data"]) async for event in run if event["method"] in ("custom", "tools")
        ]


async def test_the_v2_protocol_carries_the_events_only_with_the_transformers() -> None:
    async with MCPBridge({"demo": build_server()}, plugins=[mcpbridge_events]) as bridge:
        tools = await bridge.list_tools()
        without = await _v3_events(_agent(tools), "1")
        compiled = await _v3_events(_agent(tools, transformers=stream_transformers()), "2")
        at_call = await _v3_events(_agent(tools), "3", transformers=stream_transformers())

    assert [method for method, _ in without if method == "custom"] == []  # what @langchain/react saw
    for events in (compiled, at_call):
        lifecycle = [(d["tool_call_id"], d["event"]) for m, d in events if m == "custom" and d["type"] == EVENT_TYPE]
        assert ("call-1", "progress") in lifecycle
        assert [e for e in lifecycle if e[1] in ("finished", "error")] == [("call-2", "error"), ("call-1", "finished")]


async def test_an_mcp_error_result_is_a_tool_error_on_the_tools_channel() -> None:
    async with MCPBridge({"demo": build_server()}, plugins=[mcpbridge_events]) as bridge:
        events = await _v3_events(_agent(await bridge.list_tools()), "1")
    tools = [(d["tool_call_id"], d["event"]) for method, d in events if method == "tools"]
    # tool-error first, so useStream's assembler settles the call as "error" and ignores the end
    assert tools.index(("call-2", "tool-error")) < tools.index(("call-2", "tool-finished"))
    assert ("call-1", "tool-error") not in tools
    [error] = [d for m, d in events if m == "tools" and d["event"] == "tool-error"]
    assert error["message"] == "Error executing tool divide: division by zero"  # the server's text


async def test_the_plugin_adds_one_layer_to_a_tools_chain() -> None:
    """The lifecycle interceptor writes the `tools` channel's `tool-error` itself: no second
    interceptor on every call."""
    async with MCPBridge({"demo": build_server()}, plugins=[mcpbridge_events]) as bridge:
        assert bridge.chain == ("events", "claiming")
        assert isinstance(bridge.interceptors[0], LifecycleEvents)


async def test_without_the_tools_stream_an_mcp_error_stays_a_result() -> None:
    """Nothing to write to: the call still ends as its error ToolMessage, nothing raises."""
    async with MCPBridge({"demo": build_server()}, plugins=[mcpbridge_events]) as bridge:
        graph = _agent(await bridge.list_tools())
        chunks = [c async for c in graph.astream(USER, {"configurable": {"thread_id": "1"}}, stream_mode="updates")]
        messages = [m for c in chunks for update in c.values() if update for m in update.get("messages", [])]
    assert sorted((m.name, m.status) for m in messages if m.type == "tool") == [
        ("divide", "error"),
        ("get_forecast", "success"),
    ]
