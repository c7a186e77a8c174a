"""The interceptor: one `execute_tool` span per tool call, made current around the rest of
the chain so the mcp SDK's own client span ("MCP send tools/call ...") is its child and the
W3C `traceparent` the SDK puts into `_meta` carries this trace to the server."""

from __future__ import annotations

import asyncio
import importlib.metadata
import time
import traceback
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.errors import GraphBubbleUp, GraphInterrupt
from mcp.types import CallToolResult, InputRequiredResult
from opentelemetry import context, metrics, trace
from opentelemetry.trace import Span, SpanKind, StatusCode
from opentelemetry.util.types import AttributeValue

from mcpbridge import ServerConfig, ToolCallHandler, ToolCallRequest, install_log_redaction, redact_text
from mcpbridge_otel import semconv
from mcpbridge_otel.attributes import (
    call_attributes,
    clip,
    event_attributes,
    request_attributes,
    result_json,
    server_attributes,
    size,
    to_json,
)
from mcpbridge_otel.settings import OtelSettings

_VERSION = importlib.metadata.version("mcpbridge-otel")


class SpanEvents:
    """A per-call observer: what inner interceptors report (retry attempts, cache hits,
    approvals, elicitation rounds, progress) becomes an event on the call's span."""

    __slots__ = ("content_limit", "span")

    def __init__(self, span: Span, content_limit: int | None) -> None:
        self.span = span
        self.content_limit = content_limit

    def __call__(self, event: str, data: Mapping[str, Any]) -> None:
        self.span.add_event(event, event_attributes(data, self.content_limit))


class OtelInterceptor:
    """Traces and measures every tool call. Pass `tracer_provider` / `meter_provider` to
    use your own instead of the global ones (e.g. `MCPBridge(interceptors=[...])`)."""

    def __init__(
        self,
        settings: OtelSettings | None = None,
        *,
        servers: Mapping[str, ServerConfig] | None = None,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        self.settings = settings or OtelSettings()
        self._tracer = trace.get_tracer(semconv.INSTRUMENTATION_NAME, _VERSION, tracer_provider)
        meter = metrics.get_meter(semconv.INSTRUMENTATION_NAME, _VERSION, meter_provider)
        self._duration = meter.create_histogram(
            semconv.EXECUTE_TOOL_DURATION,
            unit="s",
            description="The duration of a single tool execution.",
            explicit_bucket_boundaries_advisory=semconv.EXECUTE_TOOL_DURATION_BUCKETS,
        )
        self._errors = meter.create_counter(
            semconv.EXECUTE_TOOL_ERRORS, unit="{error}", description="Tool calls that ended in an error, by error.type."
        )
        self._servers = {name: server_attributes(config) for name, config in (servers or {}).items()}

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        span = self._tracer.start_span(f"{semconv.EXECUTE_TOOL} {request.name}", kind=SpanKind.INTERNAL)
        recording = span.is_recording()
        if recording:
            span.set_attributes(request_attributes(request))
            span.set_attributes(self._servers.get(request.server_name, {}))
            self._record_arguments(span, request.args)
            listener = SpanEvents(span, self.settings.max_content_length if self.settings.record_content else None)
            request = request.override(observers=(*request.observers, listener))
        # A no-op tracer hands back the current span itself: nothing to make current then.
        token = None if span is trace.get_current_span() else context.attach(trace.set_span_in_context(span))
        started = time.perf_counter()
        try:
            result = await handler(request)
        except GraphBubbleUp as exc:
            if recording:
                _mark_interrupted(span, exc)
            raise
        except asyncio.CancelledError:
            if recording:
                span.set_attribute(semconv.MCPBRIDGE_CANCELLED, True)
            raise
        except Exception as exc:
            exception_type = type(exc).__qualname__
            if recording:
                span.record_exception(exc, attributes={"exception.stacktrace": _stacktrace(exc)})
                span.set_attribute(semconv.ERROR_TYPE, exception_type)
                span.set_status(StatusCode.ERROR, f"{exception_type}: {exc}")
            self._measure(request, started, exception_type)
            raise
        else:
            result_error = _result_error(result)
            if recording:
                self._record_result(span, result, result_error)
            self._measure(request, started, result_error)
            return result
        finally:
            if token is not None:
                context.detach(token)
            span.end()

    def _measure(self, request: ToolCallRequest, started: float, error_type: str | None) -> None:
        if not self.settings.metrics:
            return
        attributes = call_attributes(request)
        if error_type is not None:
            attributes[semconv.ERROR_TYPE] = error_type
            self._errors.add(1, attributes)
        self._duration.record(time.perf_counter() - started, attributes)

    def _record_arguments(self, span: Span, args: dict[str, Any]) -> None:
        text = to_json(args)
        span.set_attribute(semconv.MCPBRIDGE_ARGUMENTS_SIZE, size(text))
        if self.settings.record_content:
            span.set_attribute(semconv.GEN_AI_TOOL_CALL_ARGUMENTS, clip(text, self.settings.max_content_length))

    def _record_result(self, span: Span, result: Any, error_type: str | None) -> None:
        if isinstance(result, InputRequiredResult):
            span.add_event(semconv.INPUT_REQUIRED_EVENT, {"keys": sorted(result.input_requests or {})})
            return
        text = result_json(result)
        if text is not None:
            span.set_attribute(semconv.MCPBRIDGE_RESULT_SIZE, size(text))
        if error_type is not None:
            span.set_attribute(semconv.ERROR_TYPE, error_type)
            span.set_status(StatusCode.ERROR)
        elif text is not None and self.settings.record_content:
            span.set_attribute(semconv.GEN_AI_TOOL_CALL_RESULT, clip(text, self.settings.max_content_length))


def _stacktrace(exc: BaseException) -> str:
    """The exception and its chain, as OpenTelemetry records them, with the secrets the bridges
    know hidden: the message is already (mcpbridge errors redact themselves), but a chained
    cause quotes a transport or a server as it was."""
    return redact_text("".join(traceback.format_exception(exc)), install_log_redaction().secrets)


def _result_error(result: Any) -> str | None:
    """`tool_error` for an `isError` result or an error ToolMessage (MCP conventions)."""
    if isinstance(result, CallToolResult):
        return semconv.TOOL_ERROR if result.is_error else None
    if isinstance(result, ToolMessage):
        return semconv.TOOL_ERROR if result.status == "error" else None
    return None


def _mark_interrupted(span: Span, exc: GraphBubbleUp) -> None:
    """A LangGraph interrupt pauses the call (for approval or user input): not an error."""
    span.set_attribute(semconv.MCPBRIDGE_INTERRUPTED, True)
    attributes: dict[str, AttributeValue] = {"exception.type": type(exc).__qualname__}
    if isinstance(exc, GraphInterrupt) and exc.args:
        ids = [str(getattr(item, "id", "")) for item in exc.args[0]]
        if ids:
            attributes[semconv.MCPBRIDGE_INTERRUPT_IDS] = ids
            span.set_attribute(semconv.MCPBRIDGE_INTERRUPT_IDS, ids)
    span.add_event(semconv.INTERRUPT_EVENT, attributes)
