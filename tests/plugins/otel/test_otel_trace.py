"""One trace from the agent to the MCP server: the execute_tool span, the mcp SDK's client
span under it, and the server's span under that, in-process (legacy) and over HTTP."""

from __future__ import annotations

from typing import Any

import mcpbridge_otel
import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind, StatusCode

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel, tool_call_turn
from tests.helpers import stdio_config
from tests.helpers.telemetry import Telemetry, build_server


def _parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent else None


def assert_one_trace(telemetry: Telemetry, tool: str) -> ReadableSpan:
    """execute_tool → "MCP send tools/call" (client) → "tools/call" (server), one trace."""
    server_span = telemetry.one(f"tools/call {tool}", wait_for=f"tools/call {tool}")
    ours = telemetry.one(f"execute_tool {tool}")
    client_span = telemetry.one(f"MCP send tools/call {tool}")
    assert ours.kind is SpanKind.INTERNAL
    assert client_span.kind is SpanKind.CLIENT
    assert server_span.kind is SpanKind.SERVER
    assert _parent_id(client_span) == ours.context.span_id
    assert _parent_id(server_span) == client_span.context.span_id
    assert ours.context.trace_id == client_span.context.trace_id == server_span.context.trace_id
    return ours


async def test_inprocess_legacy_span_is_parent_of_sdk_and_server_spans(telemetry: Telemetry) -> None:
    servers = {"calc": {"server": build_server(), "mode": "legacy"}}
    async with MCPBridge(servers, plugins=[mcpbridge_otel]) as bridge:
        echo = next(t for t in await bridge.list_tools() if t.name == "echo")
        [block] = await echo.ainvoke({"text": "héllo"})
        assert block["text"] == "héllo"
    ours = assert_one_trace(telemetry, "echo")
    attrs = dict(ours.attributes or {})
    assert attrs["gen_ai.operation.name"] == "execute_tool"
    assert attrs["gen_ai.tool.name"] == "echo"
    assert attrs["gen_ai.tool.description"] == "Echo the text back."
    assert attrs["mcp.method.name"] == "tools/call"
    assert attrs["mcpbridge.server.name"] == "calc"
    assert attrs["mcpbridge.tool.call.arguments.size"] == len('{"text":"héllo"}'.encode())
    assert attrs["mcpbridge.tool.call.result.size"] > 0
    assert "gen_ai.tool.call.arguments" not in attrs, "content is recorded only with record_content = true"
    assert "gen_ai.tool.call.result" not in attrs
    assert "error.type" not in attrs
    assert ours.status.status_code is StatusCode.UNSET


async def test_http_trace_reaches_the_server(telemetry: Telemetry, otel_http_url: str) -> None:
    async with MCPBridge({"remote": {"url": otel_http_url}}, plugins=[mcpbridge_otel]) as bridge:
        echo = next(t for t in await bridge.list_tools() if t.name == "echo")
        await echo.ainvoke({"text": "hi"})
    ours = assert_one_trace(telemetry, "echo")
    attrs = dict(ours.attributes or {})
    port = int(otel_http_url.rsplit(":", 1)[1].split("/")[0])
    assert attrs["server.address"] == "127.0.0.1"
    assert attrs["server.port"] == port
    assert attrs["network.transport"] == "tcp"
    assert attrs["network.protocol.name"] == "http"


async def test_span_nests_under_the_callers_span(telemetry: Telemetry) -> None:
    tracer = trace.get_tracer("test")
    async with MCPBridge({"calc": {"server": build_server(), "mode": "legacy"}}, plugins=[mcpbridge_otel]) as bridge:
        echo = next(t for t in await bridge.list_tools() if t.name == "echo")
        with tracer.start_as_current_span("agent turn") as outer:
            await echo.ainvoke({"text": "hi"})
    assert _parent_id(telemetry.one("execute_tool echo")) == outer.get_span_context().span_id


async def test_is_error_result_is_a_tool_error(telemetry: Telemetry) -> None:
    async with MCPBridge({"calc": {"server": build_server()}}, plugins=[mcpbridge_otel]) as bridge:
        divide = next(t for t in await bridge.list_tools() if t.name == "divide")
        message = await divide.ainvoke({"type": "tool_call", "name": "divide", "args": {"a": 1, "b": 0}, "id": "c1"})
    assert message.status == "error"
    ours = telemetry.one("execute_tool divide")
    assert ours.status.status_code is StatusCode.ERROR
    assert (ours.attributes or {})["error.type"] == "tool_error"


async def test_exception_is_recorded_and_raised(telemetry: Telemetry) -> None:
    servers = {"calc": {"server": build_server(), "timeout": 0.05}}
    async with MCPBridge(servers, plugins=[mcpbridge_otel]) as bridge:
        slow = next(t for t in await bridge.list_tools() if t.name == "slow")
        message = await slow.ainvoke({"type": "tool_call", "name": "slow", "args": {"seconds": 2}, "id": "c1"})
    assert message.status == "error"
    ours = telemetry.one("execute_tool slow")
    assert ours.status.status_code is StatusCode.ERROR
    assert (ours.attributes or {})["error.type"] == "ToolTimeoutError"
    [exception] = [e for e in ours.events if e.name == "exception"]
    assert (exception.attributes or {})["exception.type"].endswith("ToolTimeoutError")


@pytest.mark.parametrize("limit", [8192, 10])
async def test_record_content(telemetry: Telemetry, limit: int) -> None:
    settings = {"otel": {"record_content": True, "max_content_length": limit}}
    async with MCPBridge(
        {"calc": {"server": build_server()}}, plugins=[mcpbridge_otel], plugin_settings=settings
    ) as bridge:
        echo = next(t for t in await bridge.list_tools() if t.name == "echo")
        await echo.ainvoke({"text": "a rather long text"})
    attrs: dict[str, Any] = dict(telemetry.one("execute_tool echo").attributes or {})
    arguments, result = '{"text":"a rather long text"}', '{"result":"a rather long text"}'
    assert attrs["gen_ai.tool.call.arguments"] == arguments[:limit]
    assert attrs["gen_ai.tool.call.result"] == result[:limit]


async def test_agent_run_records_the_tool_call_id(telemetry: Telemetry) -> None:
    async with MCPBridge({"calc": {"server": build_server()}}, plugins=[mcpbridge_otel]) as bridge:
        tools = await bridge.list_tools()
        model = ScriptedChatModel(turns=[tool_call_turn(("echo", {"text": "hi"}))])
        agent = create_agent(model, tools, checkpointer=InMemorySaver())
        out = await agent.ainvoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "t1"}})
    assert out["messages"][2].content[0]["text"] == "hi"
    assert (telemetry.one("execute_tool echo").attributes or {})["gen_ai.tool.call.id"] == "call-1"


async def test_found_through_its_entry_point(telemetry: Telemetry) -> None:
    async with MCPBridge({"calc": {"server": build_server()}}, plugins=["otel"]) as bridge:
        echo = next(t for t in await bridge.list_tools() if t.name == "echo")
        await echo.ainvoke({"text": "hi"})
    assert telemetry.one("execute_tool echo").attributes


async def test_stdio_server_is_a_pipe(telemetry: Telemetry) -> None:
    async with MCPBridge({"basic": stdio_config()}, plugins=[mcpbridge_otel]) as bridge:
        echo = next(t for t in await bridge.list_tools() if t.name == "echo")
        await echo.ainvoke({"text": "hi"})
    attrs = dict(telemetry.one("execute_tool echo").attributes or {})
    assert attrs["network.transport"] == "pipe"
    assert "server.address" not in attrs


def test_sync_invoke_keeps_the_callers_trace(telemetry: Telemetry) -> None:
    tracer = trace.get_tracer("test")
    with MCPBridge({"calc": {"server": build_server(), "mode": "legacy"}}, plugins=[mcpbridge_otel]) as bridge:
        echo = next(t for t in bridge.list_tools_sync() if t.name == "echo")
        with tracer.start_as_current_span("sync caller") as outer:
            [block] = echo.invoke({"text": "hi"})
    assert block["text"] == "hi"
    ours = assert_one_trace(telemetry, "echo")
    assert _parent_id(ours) == outer.get_span_context().span_id
