"""Usage reaches OpenTelemetry (a GenAI `chat` span per request, on both protocols) and the
events stream (an `update` event in the modern path); prompts and answers reach neither."""

from __future__ import annotations

import json
from typing import Any

import mcpbridge_events
import mcpbridge_sampling
import pytest
from mcpbridge_otel import OtelInterceptor
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from mcpbridge import MCPBridge, Plugin, ToolCallInterceptor, hookimpl
from mcpbridge.testing import make_agent, tool_call_turn
from tests.servers import sampling_server

from .recording import RecordingChatModel


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


def settings(model: RecordingChatModel, exporter: InMemorySpanExporter) -> dict[str, Any]:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return {"model": model, "all_servers": True, "tracer_provider": provider}


@pytest.mark.parametrize("mode", ["modern", "legacy"])
async def test_each_request_is_a_chat_span_with_its_usage(
    mode: str, recorder: RecordingChatModel, exporter: InMemorySpanExporter
) -> None:
    async with MCPBridge(
        {"notes": {"server": sampling_server.build(), "mode": mode}},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": settings(recorder, exporter)},
    ) as bridge:
        await bridge.call_tool("notes", "summarize", {"text": "my secret plan"})
    [span] = exporter.get_finished_spans()
    assert span.name == "chat recorder-1"
    assert span.kind == SpanKind.CLIENT
    assert dict(span.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "recorder-1",
        "gen_ai.request.max_tokens": 1024,
        "gen_ai.request.temperature": 0.2,
        "mcp.method.name": "sampling/createMessage",
        "mcpbridge.server.name": "notes",
        "gen_ai.response.model": "recorder-1",
        "gen_ai.response.finish_reasons": ("endTurn",),
        "gen_ai.usage.input_tokens": 11,
        "gen_ai.usage.output_tokens": 7,
    }


async def test_a_failed_request_is_an_error_span(exporter: InMemorySpanExporter) -> None:
    model = RecordingChatModel(fail="down")
    async with MCPBridge(
        {"notes": {"server": sampling_server.build(), "mode": "modern"}},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": settings(model, exporter)},
    ) as bridge:
        await bridge.call_tool("notes", "summarize", {"text": "t"})
    [span] = exporter.get_finished_spans()
    assert span.status.status_code == StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "RuntimeError"


async def test_usage_reaches_the_events_stream(recorder: RecordingChatModel, exporter: InMemorySpanExporter) -> None:
    async with MCPBridge(
        {"notes": {"server": sampling_server.build(), "mode": "modern"}},
        plugins=[mcpbridge_events, mcpbridge_sampling],
        plugin_settings={"sampling": settings(recorder, exporter)},
    ) as bridge:
        run = make_agent([tool_call_turn(("summarize", {"text": "my secret plan"}))], await bridge.list_tools())
        config = {"configurable": {"thread_id": "t1"}}
        chunks = [c async for c in run.astream({"messages": [("user", "go")]}, config, stream_mode="custom")]
    updates = [c for c in chunks if c.get("event") == "update" and c.get("update") == "sampling"]
    assert [u["data"] for u in updates] == [
        {
            "server_name": "notes",
            "name": "summarize",
            "key": "tests.servers.sampling_server:ask_summary",
            "model": "recorder-1",
            "max_tokens": 1024,
            "stop_reason": "endTurn",
            "input_tokens": 11,
            "output_tokens": 7,
        }
    ]
    # `started` and `finished` show the tool's arguments and result; the updates never the
    # prompt or the model's answer.
    streamed = json.dumps([c for c in chunks if c.get("event") not in ("started", "finished")])
    assert "secret plan" not in streamed
    assert "one-line summary" not in streamed


class TracedCalls:
    """The otel plugin's interceptor at its place in the chain, on the test's own provider."""

    mcpbridge_plugin = Plugin(position=20)

    def __init__(self, provider: TracerProvider) -> None:
        self.provider = provider

    @hookimpl
    def mcpbridge_interceptors(self) -> list[ToolCallInterceptor]:
        return [OtelInterceptor(tracer_provider=self.provider)]


async def test_the_chat_span_is_a_child_of_the_tool_call_span(
    recorder: RecordingChatModel, exporter: InMemorySpanExporter
) -> None:
    sampling = settings(recorder, exporter)
    async with MCPBridge(
        {"notes": {"server": sampling_server.build(), "mode": "modern"}},
        plugins=[TracedCalls(sampling["tracer_provider"]), mcpbridge_sampling],
        plugin_settings={"sampling": sampling},
    ) as bridge:
        await bridge.call_tool("notes", "summarize", {"text": "t"})
    spans = {span.name: span for span in exporter.get_finished_spans()}
    chat, tool = spans["chat recorder-1"], spans["execute_tool summarize"]
    assert chat.parent is not None
    assert chat.parent.span_id == tool.context.span_id


async def test_a_model_object_without_a_model_name_is_named_by_its_class(exporter: InMemorySpanExporter) -> None:
    async with MCPBridge(
        {"notes": {"server": sampling_server.build()}},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": settings(RecordingChatModel(model_name=""), exporter)},
    ) as bridge:
        await bridge.call_tool("notes", "summarize", {"text": "x"})
    [span] = exporter.get_finished_spans()
    assert span.name == "chat RecordingChatModel"  # `Runnable.get_name()`, not the private `_llm_type`
