"""ToolCallAssembler against real create_agent runs: the same AssembledToolCall objects from
the plugin's events or from LangGraph's own "tools" stream, calls completing independently,
per-AIMessage filtering, interrupts, subgraph namespaces."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import mcpbridge_events
import pytest
from langchain_core.messages import AIMessage, AnyMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from mcpbridge_events import AssembledToolCall, ToolCallAssembler

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest

from .events_support import FORECAST, USER, agent, ask, build_server, hold, stream

PARALLEL = ask(
    ("get_forecast", {"city": "Oslo"}),
    ("add", {"a": 2, "b": 3}),
    ("divide", {"a": 1, "b": 0}),
    ("fetch_page", {"url": "https://example.com"}),
)


def view(call: AssembledToolCall) -> tuple[Any, ...]:
    return call.name, call.call_id, call.input, call.status, call.output, call.error, call.namespace


async def assembled(plugins: list[object], stream_mode: Any) -> ToolCallAssembler:
    assembler = ToolCallAssembler()
    async with MCPBridge({"weather": build_server()}, plugins=plugins) as bridge:
        graph = agent(await bridge.list_tools(), PARALLEL)
        for chunk in await stream(graph, USER, stream_mode):
            assembler.feed(chunk)
    return assembler


async def test_same_calls_with_the_plugin_or_from_langgraph_tools_events() -> None:
    with_plugin = await assembled([mcpbridge_events], "custom")  # bare chunks of one mode
    without = await assembled([], ["tools", "updates"])
    assert [view(c) for c in with_plugin.tool_calls] == [view(c) for c in without.tool_calls]
    forecast, add, divide, page = without.tool_calls
    assert view(forecast) == (
        "get_forecast",
        "call-1",
        {"city": "Oslo"},
        "finished",
        FORECAST,
        None,
        [],
    )
    assert (add.status, add.output) == ("finished", {"result": 5.0})
    assert divide.status == "error"
    assert divide.error is not None
    assert "division by zero" in divide.error
    assert page.output.startswith("<h1>Offers</h1><script>")
    # only the plugin knows the server and the progress
    assert (with_plugin.tool_calls[0].server_name, without.tool_calls[0].server_name) == ("weather", None)
    assert (with_plugin.tool_calls[0].mcp_name, without.tool_calls[0].mcp_name) == ("get_forecast", None)
    progress = with_plugin.tool_calls[0].progress
    assert progress is not None
    assert (progress.progress, progress.total, progress.message) == (3, 4, "asking station 4 of 4")


async def test_concurrent_calls_complete_independently() -> None:
    gate = asyncio.Event()
    seen: list[tuple[str, str, str]] = []  # (changed call, its status, forecast's status at that moment)
    assembler = ToolCallAssembler()
    async with MCPBridge(
        {"weather": build_server()}, plugins=[mcpbridge_events], interceptors=[hold("get_forecast", gate)]
    ) as bridge:
        graph = agent(await bridge.list_tools(), ask(("get_forecast", {"city": "Oslo"}), ("add", {"a": 2, "b": 3})))
        config = {"configurable": {"thread_id": "t1"}}
        async for call in assembler.track(graph.astream(USER, config, stream_mode=["updates", "custom"])):
            forecast = assembler.get("call-1")
            seen.append((call.call_id, call.status, forecast.status if forecast else "-"))
            if call.call_id == "call-2" and call.status == "finished":
                gate.set()  # the forecast may answer only after the sum is done
    assert ("call-2", "finished", "running") in seen
    assert ("call-1", "running", "running") in seen
    assert [c.status for c in assembler.tool_calls] == ["finished", "finished"]


async def test_calls_filtered_by_the_aimessage_that_asked_for_them() -> None:
    first = ask(("add", {"a": 1, "b": 2}), prefix="a")
    second = ask(("get_forecast", {"city": "Oslo"}), ("divide", {"a": 4, "b": 2}), prefix="b")
    assembler = ToolCallAssembler()
    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events]) as bridge:
        graph = agent(await bridge.list_tools(), first, second)
        chunks = await stream(graph, USER, ["updates", "custom"])
    asked: list[AIMessage] = []
    for chunk in chunks:
        assembler.feed(chunk)
        if chunk[0] == "updates" and "model" in chunk[1]:
            asked += [m for m in chunk[1]["model"]["messages"] if m.tool_calls]
    assert [c.call_id for c in assembler.for_message(asked[0])] == ["a-1"]
    assert [c.call_id for c in assembler.for_message(asked[1])] == ["b-1", "b-2"]
    assert {c.message_id for c in assembler.for_message(asked[1])} == {asked[1].id}
    assert [c.output for c in assembler.for_message(asked[1])][1] == {"result": 2.0}


async def test_an_interrupt_without_the_plugin_keeps_the_call_running_until_resumed() -> None:
    async def ask_first(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        if request.name == "add":
            interrupt("may I?")
        return await handler(request)

    assembler = ToolCallAssembler()
    async with MCPBridge({"weather": build_server()}, plugins=[], interceptors=[ask_first]) as bridge:
        graph = agent(await bridge.list_tools(), ask(("add", {"a": 2, "b": 3}), ("divide", {"a": 1, "b": 0})))
        for chunk in await stream(graph, USER, ["tools", "updates"]):
            assembler.feed(chunk)
        add, divide = assembler.tool_calls
        assert (add.status, add.interrupted) == ("running", True)
        assert (divide.status, divide.interrupted) == ("error", False)
        for chunk in await stream(graph, Command(resume="yes"), ["tools", "updates"]):
            assembler.feed(chunk)
    assert (add.status, add.interrupted, add.output) == ("finished", False, {"result": 5.0})


class Outer(TypedDict):
    messages: list[AnyMessage]


async def test_a_call_in_a_subgraph_carries_the_stream_namespace() -> None:
    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events]) as bridge:
        inner = agent(await bridge.list_tools(), ask(("add", {"a": 2, "b": 3})))
        builder = StateGraph(Outer)
        builder.add_node("assistant", inner)
        builder.add_edge(START, "assistant")
        graph = builder.compile(checkpointer=InMemorySaver())
        chunks = await stream(graph, USER, ["custom", "tools"], subgraphs=True)
    tool_namespaces = {tuple(c[0]) for c in chunks if c[1] == "tools"}
    [namespace] = tool_namespaces
    assert namespace
    assert namespace[0].startswith("assistant:")
    with_tools = ToolCallAssembler()
    with_plugin = ToolCallAssembler()
    for chunk in chunks:
        (with_tools if chunk[1] == "tools" else with_plugin).feed(chunk)
    assert with_plugin.tool_calls[0].namespace == list(namespace) == with_tools.tool_calls[0].namespace


def test_js_field_names() -> None:
    call = AssembledToolCall(call_id="c1", name="add", input={"a": 1}, status="finished", output=2)
    assert (call.callId, call.id, call.args) == ("c1", "c1", {"a": 1})
    js = call.to_js()
    assert {k: js[k] for k in ("name", "callId", "id", "namespace", "input", "args", "output", "status", "error")} == {
        "name": "add",
        "callId": "c1",
        "id": "c1",
        "namespace": [],
        "input": {"a": 1},
        "args": {"a": 1},
        "output": 2,
        "status": "finished",
        "error": None,
    }


def test_a_task_status_shows_on_the_call() -> None:
    """The tasks plugin's `task.status` updates and its artifact note set the call's task."""
    call = AssembledToolCall(call_id="c1", name="report")
    call._apply_update("task.status", {"task_id": "t-1", "status": "working", "message": "step 1"})
    assert (call.task_id, call.task_status) == ("t-1", "working")
    call._apply_update("task.status", {"task_id": "t-1", "status": "completed", "message": "step 1"})
    call._apply_notes([{"type": "mcpbridge_tasks", "task_id": "t-1"}])
    assert {k: call.to_js()[k] for k in ("taskId", "taskStatus")} == {"taskId": "t-1", "taskStatus": "completed"}


async def test_a_raising_tool_reads_as_an_error_from_langgraph_tools_stream_alone() -> None:
    """LangGraph's own `tools` stream reports a tool that raises as `tool-error` with the
    error's text in `message`: the assembler shows that text while the run still goes."""

    @tool
    def explode(reason: str) -> str:
        """Always fails."""
        raise ValueError(f"exploded: {reason}")

    graph = agent([explode], ask(("explode", {"reason": "no fuel"})))
    assembler = ToolCallAssembler()

    async def feed() -> None:
        async for chunk in graph.astream(USER, {"configurable": {"thread_id": "t1"}}, stream_mode="tools"):
            assembler.feed(chunk)

    with pytest.raises(ValueError, match="exploded: no fuel"):  # the tool node lets it through
        await feed()
    [call] = assembler.tool_calls
    assert (call.name, call.call_id, call.status, call.error) == ("explode", "call-1", "error", "exploded: no fuel")
