"""What the other plugins report through the per-call observers becomes span events; a
LangGraph interrupt ends the span as interrupted, not failed; without an SDK nothing runs."""

from __future__ import annotations

import asyncio
from typing import Any

import mcpbridge_otel
import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, interrupt
from mcpbridge_otel import OtelInterceptor
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.trace import NoOpTracerProvider, StatusCode

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import ScriptedChatModel, tool_call_turn
from tests.helpers.telemetry import Telemetry, build_server

PLUGIN_EVENTS = [
    ("cache.miss", {"key": "k1"}),
    ("retry.attempt", {"attempt": 2, "delay": 0.5, "error": ValueError("flaky")}),
    ("approval.requested", {"arguments": {"text": "secret"}, "actions": ["approve", "reject"]}),
    ("approval.decided", {"decision": "approve", "note": None}),
    ("elicitation.round", {"round": 1, "keys": ("name", 3)}),
]


async def report_like_plugins(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """Stands in for the retry / cache / approval / elicitation plugins: notifies as they do."""
    for event, data in PLUGIN_EVENTS:
        request.notify(event, **data)
    return await handler(request)


async def test_observer_events_and_mcp_progress_become_span_events(telemetry: Telemetry) -> None:
    async with MCPBridge(
        {"calc": {"server": build_server()}}, plugins=[mcpbridge_otel], interceptors=[report_like_plugins]
    ) as bridge:
        count = next(t for t in await bridge.list_tools() if t.name == "count")
        await count.ainvoke({"n": 3})
    events = [(e.name, dict(e.attributes or {})) for e in telemetry.one("execute_tool count").events]
    assert events[:5] == [
        ("cache.miss", {"key": "k1"}),
        ("retry.attempt", {"attempt": 2, "delay": 0.5, "error": "flaky"}),
        ("approval.requested", {"actions": ("approve", "reject")}),
        ("approval.decided", {"decision": "approve"}),
        ("elicitation.round", {"round": 1, "keys": "('name', 3)"}),
    ]
    progress = [attrs for name, attrs in events[5:] if name == "progress"]
    assert [p["progress"] for p in progress] == [1, 2, 3]
    assert progress[-1] == {"progress": 3, "total": 3, "message": "step 3"}


async def test_mapping_payloads_are_content(telemetry: Telemetry) -> None:
    settings = {"otel": {"record_content": True}}
    async with MCPBridge(
        {"calc": {"server": build_server()}},
        plugins=[mcpbridge_otel],
        interceptors=[report_like_plugins],
        plugin_settings=settings,
    ) as bridge:
        echo = next(t for t in await bridge.list_tools() if t.name == "echo")
        await echo.ainvoke({"text": "hi"})
    [requested] = [e for e in telemetry.one("execute_tool echo").events if e.name == "approval.requested"]
    assert (requested.attributes or {})["arguments"] == '{"text":"secret"}'


async def ask_first(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """Stands in for the approval plugin: pauses the run until a human answers."""
    if interrupt({"question": f"run {request.name}?"}) != "yes":
        raise AssertionError("the test resumes with 'yes'")
    return await handler(request)


async def test_interrupt_ends_the_span_as_interrupted_not_failed(
    telemetry: Telemetry, metric_reader: tuple[MeterProvider, InMemoryMetricReader]
) -> None:
    provider, reader = metric_reader
    otel = OtelInterceptor(meter_provider=provider)
    async with MCPBridge({"calc": {"server": build_server()}}, plugins=[], interceptors=[otel, ask_first]) as bridge:
        tools = await bridge.list_tools()
        agent = create_agent(
            ScriptedChatModel(turns=[tool_call_turn(("echo", {"text": "hi"}))]), tools, checkpointer=InMemorySaver()
        )
        config: Any = {"configurable": {"thread_id": "t1"}}
        paused = await agent.ainvoke({"messages": [("user", "go")]}, config)
        [pending] = paused["__interrupt__"]
        interrupted = telemetry.one("execute_tool echo")
        telemetry.exporter.clear()
        done = await agent.ainvoke(Command(resume="yes"), config)
    assert done["messages"][2].content[0]["text"] == "hi"
    attrs = dict(interrupted.attributes or {})
    assert attrs["mcpbridge.interrupted"] is True
    assert attrs["mcpbridge.interrupt.ids"] == (pending.id,)
    assert "error.type" not in attrs
    assert interrupted.status.status_code is StatusCode.UNSET
    assert [e.name for e in interrupted.events] == ["mcpbridge.interrupt"]
    resumed = telemetry.one("execute_tool echo")
    assert "mcpbridge.interrupted" not in (resumed.attributes or {})
    names = {m.name for rm in reader.get_metrics_data().resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert "mcpbridge.execute_tool.errors" not in names, "an interrupt is not an error"


async def test_cancellation_is_marked_and_raised(
    telemetry: Telemetry, metric_reader: tuple[MeterProvider, InMemoryMetricReader]
) -> None:
    in_flight = asyncio.Event()

    async def signal(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        in_flight.set()
        return await handler(request)

    provider, reader = metric_reader
    otel = OtelInterceptor(meter_provider=provider)
    async with MCPBridge({"calc": {"server": build_server()}}, plugins=[], interceptors=[otel, signal]) as bridge:
        slow = next(t for t in await bridge.list_tools() if t.name == "slow")
        task = asyncio.create_task(slow.ainvoke({"seconds": 30}))
        await in_flight.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    span = telemetry.one("execute_tool slow")
    assert (span.attributes or {})["mcpbridge.cancelled"] is True
    assert span.status.status_code is StatusCode.UNSET
    assert reader.get_metrics_data() is None, "a cancelled call did not finish: no duration, no error"


async def test_without_an_sdk_the_request_passes_untouched(telemetry: Telemetry) -> None:
    seen: list[ToolCallRequest] = []

    async def spy(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        seen.append(request)
        return await handler(request)

    otel = OtelInterceptor(tracer_provider=NoOpTracerProvider(), meter_provider=NoOpMeterProvider())
    async with MCPBridge({"calc": {"server": build_server()}}, plugins=[], interceptors=[otel, spy]) as bridge:
        echo = next(t for t in await bridge.list_tools() if t.name == "echo")
        [block] = await echo.ainvoke({"text": "hi"})
    assert block["text"] == "hi"
    assert seen[0].observers == (), "no listener is added when nothing records"
    names = [s.name for s in telemetry.spans()]
    assert "tools/call echo" in names, "the global SDK still records the server span"
    assert "execute_tool echo" not in names
