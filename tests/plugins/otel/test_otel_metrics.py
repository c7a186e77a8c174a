"""Metrics, settings and names: the duration histogram and error counter, config errors,
and our attribute names checked against opentelemetry-semantic-conventions."""

from __future__ import annotations

import warnings
from typing import Any

import mcpbridge_events
import mcpbridge_otel
import pytest
from mcpbridge_otel import OtelInterceptor, OtelSettings, semconv
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader, NumberDataPoint

from mcpbridge import ConfigError, MCPBridge
from tests.helpers.telemetry import build_server


def points(reader: InMemoryMetricReader, name: str) -> list[Any]:
    data = reader.get_metrics_data()
    if data is None:
        return []
    return [
        point
        for rm in data.resource_metrics
        for sm in rm.scope_metrics
        for metric in sm.metrics
        if metric.name == name
        for point in metric.data.data_points
    ]


async def call_tools(otel: OtelInterceptor) -> None:
    async with MCPBridge({"calc": {"server": build_server()}}, plugins=[], interceptors=[otel]) as bridge:
        tools = {t.name: t for t in await bridge.list_tools()}
        await tools["echo"].ainvoke({"text": "a"})
        await tools["echo"].ainvoke({"text": "b"})
        call = {"type": "tool_call", "name": "divide", "args": {"a": 1, "b": 0}, "id": "c1"}
        assert (await tools["divide"].ainvoke(call)).status == "error"


async def test_duration_histogram_and_error_counter(metric_reader: tuple[MeterProvider, InMemoryMetricReader]) -> None:
    provider, reader = metric_reader
    await call_tools(OtelInterceptor(meter_provider=provider))

    durations: dict[tuple[str, str | None], HistogramDataPoint] = {
        (p.attributes["gen_ai.tool.name"], p.attributes.get("error.type")): p
        for p in points(reader, "gen_ai.execute_tool.duration")
    }
    assert set(durations) == {("echo", None), ("divide", "tool_error")}
    assert durations["echo", None].count == 2
    assert durations["divide", "tool_error"].count == 1
    assert 0 < durations["echo", None].sum < 5
    assert tuple(durations["echo", None].explicit_bounds) == semconv.EXECUTE_TOOL_DURATION_BUCKETS
    assert dict(durations["echo", None].attributes) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "mcp.method.name": "tools/call",
        "mcpbridge.server.name": "calc",
    }
    [errors] = points(reader, "mcpbridge.execute_tool.errors")
    assert isinstance(errors, NumberDataPoint)
    assert errors.value == 1
    assert errors.attributes["error.type"] == "tool_error"


async def test_metrics_can_be_turned_off(metric_reader: tuple[MeterProvider, InMemoryMetricReader]) -> None:
    provider, reader = metric_reader
    await call_tools(OtelInterceptor(OtelSettings(metrics=False), meter_provider=provider))
    assert points(reader, "gen_ai.execute_tool.duration") == []
    assert points(reader, "mcpbridge.execute_tool.errors") == []


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"record_contents": True}, "`plugins.otel.record_contents`: unknown key"),
        ({"max_content_length": 0}, "`plugins.otel.max_content_length`: Input should be greater than 0"),
        ({"record_content": "sometimes"}, "`plugins.otel.record_content`"),
    ],
)
def test_bad_settings_name_the_key(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match="plugin 'otel'") as caught:
        MCPBridge({"calc": {"server": build_server()}}, plugins=[mcpbridge_otel], plugin_settings={"otel": settings})
    assert message in str(caught.value)


def test_its_declared_position_puts_it_inside_events() -> None:
    bridge = MCPBridge({"calc": {"server": build_server()}}, plugins=[mcpbridge_otel, mcpbridge_events])
    assert bridge.chain == ("events", "otel", "claiming")


def test_names_match_the_semantic_conventions_package() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from opentelemetry.semconv._incubating.attributes import (
            error_attributes as error,
            gen_ai_attributes as gen_ai,
            mcp_attributes as mcp,
        )
        from opentelemetry.semconv.attributes import network_attributes as network, server_attributes as server

    assert semconv.GEN_AI_OPERATION_NAME == gen_ai.GEN_AI_OPERATION_NAME
    assert gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value == semconv.EXECUTE_TOOL
    assert semconv.GEN_AI_TOOL_NAME == gen_ai.GEN_AI_TOOL_NAME
    assert semconv.GEN_AI_TOOL_DESCRIPTION == gen_ai.GEN_AI_TOOL_DESCRIPTION
    assert semconv.GEN_AI_TOOL_CALL_ID == gen_ai.GEN_AI_TOOL_CALL_ID
    assert semconv.GEN_AI_TOOL_CALL_ARGUMENTS == gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS
    assert semconv.GEN_AI_TOOL_CALL_RESULT == gen_ai.GEN_AI_TOOL_CALL_RESULT
    assert semconv.MCP_METHOD_NAME == mcp.MCP_METHOD_NAME
    assert mcp.McpMethodNameValues.TOOLS_CALL.value == semconv.TOOLS_CALL
    assert semconv.ERROR_TYPE == error.ERROR_TYPE
    assert semconv.SERVER_ADDRESS == server.SERVER_ADDRESS
    assert semconv.SERVER_PORT == server.SERVER_PORT
    assert semconv.NETWORK_TRANSPORT == network.NETWORK_TRANSPORT
    assert semconv.NETWORK_PROTOCOL_NAME == network.NETWORK_PROTOCOL_NAME
