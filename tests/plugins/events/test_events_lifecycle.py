"""The lifecycle interceptor inside real create_agent runs: started / progress / finished /
error per call id, other plugins' doings as fields of the same call, interrupts untouched."""

from __future__ import annotations

from typing import Any

import mcpbridge_events
import pytest
from langgraph.types import Command, interrupt
from mcp.types import InputRequiredResult
from mcpbridge_events import ToolCallAssembler

from mcpbridge import ConfigError, MCPBridge, Plugin, ToolCallHandler, ToolCallInterceptor, ToolCallRequest, hookimpl

from .events_support import FORECAST, USER, agent, ask, build_server, lifecycle, stream


class Reporting:
    """A plugin inside the events plugin that declares the artifact entry types it adds."""

    mcpbridge_name = "reporting"

    def __init__(self, interceptor: ToolCallInterceptor, *artifacts: str) -> None:
        self.mcpbridge_plugin = Plugin(position=50, artifacts=artifacts)
        self.interceptor = interceptor

    @hookimpl
    def mcpbridge_interceptors(self) -> list[ToolCallInterceptor]:
        return [self.interceptor]


def by_call(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    calls: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        calls.setdefault(event["tool_call_id"], []).append(event)
    return calls


async def test_parallel_calls_each_get_their_own_lifecycle() -> None:
    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events]) as bridge:
        graph = agent(
            await bridge.list_tools(),
            ask(("get_forecast", {"city": "Oslo"}), ("add", {"a": 2, "b": 3}), ("divide", {"a": 1, "b": 0})),
        )
        chunks = await stream(graph, USER, ["updates", "custom"])
    asked = next(c[1]["model"]["messages"][0] for c in chunks if c[0] == "updates" and "model" in c[1])
    calls = by_call(lifecycle(chunks))
    assert sorted(calls) == ["call-1", "call-2", "call-3"]
    for tool_call_id, events in calls.items():
        started = events[0]
        assert started["event"] == "started"
        assert started["server_name"] == "weather"
        assert started["namespace"] == []
        assert started["message_id"] == asked.id
        assert [e["event"] for e in events].count("started") == 1
        assert events[-1]["event"] in ("finished", "error"), tool_call_id
        assert sum(e["event"] in ("finished", "error") for e in events) == 1

    forecast = calls["call-1"]
    assert (forecast[0]["name"], forecast[0]["display_name"]) == ("get_forecast", "get_forecast")
    assert forecast[0]["input"] == {"city": "Oslo"}
    progress = [e for e in forecast if e["event"] == "progress"]
    assert [(p["progress"], p["total"], p["message"]) for p in progress] == [
        (step, 4, f"asking station {step + 1} of 4") for step in range(4)
    ]
    assert forecast[-1] == {
        "type": "mcpbridge.tool_call",
        "event": "finished",
        "tool_call_id": "call-1",
        "output": FORECAST,
        "notes": [],
    }
    assert calls["call-2"][-1]["output"] == {"result": 5.0}
    assert calls["call-3"][-1]["event"] == "error"
    assert "division by zero" in calls["call-3"][-1]["error"]


async def test_other_plugins_show_up_as_fields_of_the_same_call() -> None:
    async def busy_plugins(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        """Stands in for cache / retry / approval, which sit inside the events plugin."""
        request.notify("approval.requested", arguments=dict(request.args))
        request.notify("approval.decided", decision="approve")
        request.notify("retry.attempt", attempt=2, error=ValueError("flaky"))
        request.notify("cache.hit", age_s=1.5)
        request.artifact.append({"type": "mcpbridge_cache", "hit": True})
        request.artifact.append({"type": "mcpbridge_retry", "attempts": 2})
        request.artifact.append({"type": "audit", "who": "ops"})  # declared: a note, whatever its name
        request.artifact.append({"type": "mcpbridge_undeclared", "x": 1})  # not declared by any plugin
        request.artifact.append({"type": "not_ours", "x": 1})
        return await handler(request)

    reporting = Reporting(busy_plugins, "mcpbridge_cache", "mcpbridge_retry", "audit")
    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events, reporting]) as bridge:
        graph = agent(await bridge.list_tools(), ask(("add", {"a": 1, "b": 1})))
        chunks = await stream(graph, USER, ["updates", "custom"])
    events = lifecycle(chunks)
    assert {e["tool_call_id"] for e in events} == {"call-1"}
    updates = [(e["update"], e["data"]) for e in events if e["event"] == "update"]
    assert updates == [
        ("approval.requested", {"arguments": {"a": 1, "b": 1}}),
        ("approval.decided", {"decision": "approve"}),
        ("retry.attempt", {"attempt": 2, "error": "flaky"}),
        ("cache.hit", {"age_s": 1.5}),
    ]
    assert events[0]["note_types"] == ["audit", "mcpbridge_cache", "mcpbridge_retry"]
    assert events[-1]["notes"] == [
        {"type": "mcpbridge_cache", "hit": True},
        {"type": "mcpbridge_retry", "attempts": 2},
        {"type": "audit", "who": "ops"},
    ]

    assembler = ToolCallAssembler()
    for chunk in chunks:
        assembler.feed(chunk)
    [call] = assembler.tool_calls
    assert (call.status, call.cached, call.attempts, call.approval) == ("finished", True, 2, "approve")
    assert call.notes == events[-1]["notes"]  # the ToolMessage's other entries are not notes
    assert [u["update"] for u in call.updates] == [
        "approval.requested",
        "approval.decided",
        "retry.attempt",
        "cache.hit",
    ]


async def test_an_interrupt_passes_through_and_the_resumed_call_finishes() -> None:
    async def ask_first(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        if request.name == "add":
            request.notify("approval.decided", decision=interrupt({"tool": request.name}))
        return await handler(request)

    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events], interceptors=[ask_first]) as bridge:
        graph = agent(await bridge.list_tools(), ask(("add", {"a": 2, "b": 3}), ("get_forecast", {"city": "Oslo"})))
        first = await stream(graph, USER, ["updates", "custom"])
        assert any(c[0] == "updates" and "__interrupt__" in c[1] for c in first)
        second = await stream(graph, Command(resume="approve"), ["updates", "custom"])

    paused = by_call(lifecycle(first))
    assert [e["event"] for e in paused["call-1"]] == ["started", "interrupted"]
    assert paused["call-2"][-1]["event"] == "finished"
    resumed = by_call(lifecycle(second))
    assert list(resumed) == ["call-1"]  # the finished call does not run again
    assert [e["event"] for e in resumed["call-1"]] == ["started", "update", "finished"]

    assembler = ToolCallAssembler()
    for chunk in first:
        assembler.feed(chunk)
    add = assembler.get("call-1")
    assert add is not None
    assert (add.status, add.interrupted) == ("running", True)
    for chunk in second:
        assembler.feed(chunk)
    assert (add.status, add.interrupted, add.output, add.approval) == ("finished", False, {"result": 5.0}, "approve")
    assert len(assembler.tool_calls) == 2


async def test_a_timeout_becomes_an_error_event() -> None:
    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events], timeout=0.2) as bridge:
        graph = agent(await bridge.list_tools(), ask(("slow", {"seconds": 5})))
        events = lifecycle(await stream(graph, USER, "custom"))
    assert [e["event"] for e in events] == ["started", "error"]
    assert "timed out" in events[-1]["error"]


async def test_a_request_for_input_that_nobody_answers_is_an_error_event() -> None:
    async def asks(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return InputRequiredResult(request_state="s1", input_requests={})  # as a modern server asks

    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events], interceptors=[asks]) as bridge:
        graph = agent(await bridge.list_tools(), ask(("add", {"a": 2, "b": 3})))
        events = lifecycle(await stream(graph, USER, "custom"))
    assert [e["event"] for e in events] == ["started", "error"]
    assert events[-1]["error"] == "the server asked for user input, and no plugin answered it"


async def test_settings_can_keep_arguments_and_outputs_off_the_stream() -> None:
    async def approve_edited(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        """Reports the arguments as the approval plugin does, when a person edits them."""
        request.notify("approval.requested", arguments={"secret": "s3cr3t"}, server_name=request.server_name)
        request.artifact.append({"type": "mcpbridge_approval", "decision": "edit", "arguments": {"secret": "s3cr3t"}})
        return await handler(request)

    settings = {"events": {"include_input": False, "include_output": False}}
    async with MCPBridge(
        {"weather": build_server()},
        plugins=[mcpbridge_events, Reporting(approve_edited, "mcpbridge_approval")],
        plugin_settings=settings,
    ) as bridge:
        graph = agent(await bridge.list_tools(), ask(("add", {"a": 2, "b": 3})))
        events = lifecycle(await stream(graph, USER, "custom"))
    assert (events[0]["event"], events[0]["input"]) == ("started", None)
    assert (events[1]["event"], events[1]["data"]) == ("update", {"server_name": "weather"})
    assert (events[-1]["event"], events[-1]["output"]) == ("finished", None)
    assert events[-1]["notes"] == [{"type": "mcpbridge_approval", "decision": "edit"}]
    assert "s3cr3t" not in repr(events)


async def test_a_prefixed_tool_keeps_its_own_name_apart_from_the_display_name() -> None:
    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events], tool_name_prefix=True) as bridge:
        graph = agent(await bridge.list_tools(), ask(("weather_add", {"a": 2, "b": 3})))
        chunks = await stream(graph, USER, ["updates", "custom"])
    started = lifecycle(chunks)[0]
    assert (started["server_name"], started["name"], started["display_name"]) == ("weather", "add", "weather_add")
    assembler = ToolCallAssembler()
    for chunk in chunks:
        assembler.feed(chunk)
    [call] = assembler.tool_calls
    assert (call.name, call.mcp_name, call.server_name, call.status) == ("weather_add", "add", "weather", "finished")
    assert (call.to_js()["name"], call.to_js()["mcpName"], call.to_js()["serverName"]) == (
        "weather_add",
        "add",
        "weather",
    )


def test_an_unknown_setting_names_the_key() -> None:
    with pytest.raises(ConfigError, match=r"plugins\.events\.include_args.*unknown key"):
        MCPBridge(
            {"weather": build_server()}, plugins=[mcpbridge_events], plugin_settings={"events": {"include_args": 1}}
        )


async def test_found_through_its_entry_point() -> None:
    async with MCPBridge({"weather": build_server()}, plugins=["events"]) as bridge:
        graph = agent(await bridge.list_tools(), ask(("add", {"a": 2, "b": 3})))
        events = lifecycle(await stream(graph, USER, "custom"))
    assert [e["event"] for e in events] == ["started", "finished"]


async def test_a_call_outside_a_graph_is_left_alone() -> None:
    async with MCPBridge({"weather": build_server()}, plugins=[mcpbridge_events]) as bridge:
        message = await bridge.call_tool("weather", "add", {"a": 2, "b": 3})
    assert message.status == "success"
    assert message.artifact[0] == {"type": "mcp_structured_content", "data": {"result": 5.0}}
