"""The lifecycle interceptor: tells a UI, through LangGraph's custom stream, that a tool call
started, made progress, finished or failed — the moment it happens, not when the step ends.
A call that ends in an error result is also reported as `tool-error` on LangGraph's `tools`
channel, as LangGraph reports a tool that raises (see `streaming`).

Every event is a dict with `type == EVENT_TYPE`, the `event` kind and the `tool_call_id` (the
AIMessage's tool-call id), so a consumer can pick them out of `stream_mode="custom"` and
fold them into one card per call (see `ToolCallAssembler`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.errors import GraphBubbleUp
from mcp.types import CallToolResult, InputRequiredResult

from mcpbridge import STRUCTURED_CONTENT, ToolCallHandler, ToolCallRequest, result_text
from mcpbridge_events.limits import Limits, bounded
from mcpbridge_events.runs import namespace_of, report_tool_error

EVENT_TYPE = "mcpbridge.tool_call"
"""The `type` of every event this plugin writes to the custom stream."""


class LifecycleEvents:
    """Writes started / progress / update / interrupted / finished / error events to
    `request.runtime.stream_writer`. Outermost, so it sees cache hits, retries and approvals
    of the same call (through `request.notify` and the artifact) and reports them as fields of
    that call instead of as calls of their own. Its notes are the artifact entries whose
    `type` is in `note_types` (the bridge's declared `context.artifact_types`). Every text a
    server sends in an update or progress event is cut to `limits.max_text_bytes`; `started`
    tells consumers the limits and the note types."""

    def __init__(
        self,
        *,
        include_input: bool = True,
        include_output: bool = True,
        limits: Limits | None = None,
        note_types: Iterable[str] = (),
    ) -> None:
        self.include_input = include_input
        self.include_output = include_output
        self.limits = limits or Limits()
        self.note_types = frozenset(note_types)
        self._announced = self.limits.to_event()

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        runtime, tool_call_id = request.runtime, request.tool_call_id
        if runtime is None or tool_call_id is None:
            return await handler(request)  # called outside a graph: there is no stream to write to
        writer = runtime.stream_writer

        def emit(event: str, **data: Any) -> None:
            writer({"type": EVENT_TYPE, "event": event, "tool_call_id": tool_call_id, **data})

        emit(
            "started",
            server_name=request.server_name,
            name=request.name,
            display_name=request.display_name or request.name,
            namespace=namespace_of(runtime),
            message_id=_message_id(runtime, tool_call_id),
            input=dict(request.args) if self.include_input else None,
            limits=dict(self._announced),
            note_types=sorted(self.note_types),
        )
        max_text = self.limits.max_text_bytes

        def listen(event: str, data: Mapping[str, Any]) -> None:
            if event == "progress":
                emit("progress", **{k: bounded(data.get(k), max_text) for k in ("progress", "total", "message")})
            else:
                emit("update", update=event, data=self._public(data))

        try:
            result = await handler(request.override(observers=(*request.observers, listen)))
        except GraphBubbleUp:
            emit("interrupted", notes=self._notes(request))
            raise
        except (asyncio.CancelledError, Exception) as exc:
            failure = "cancelled" if isinstance(exc, asyncio.CancelledError) else str(exc) or type(exc).__name__
            emit("error", error=failure, notes=self._notes(request))
            raise
        error = _error_of(result)
        if error is not None:
            report_tool_error(runtime, tool_call_id, error)  # silent when the run does not stream `tools`
            emit("error", error=error, notes=self._notes(request))
        else:
            emit("finished", output=_output(result) if self.include_output else None, notes=self._notes(request))
        return result

    def _public(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """`data` made JSON-friendly and each value cut to `max_text_bytes`; without
        `include_input`, nested mappings (the arguments an approval asks about or an edit
        changed) are left out, like `started.input`."""
        max_text = self.limits.max_text_bytes
        return {
            str(k): _jsonable(bounded(v, max_text))  # cut first: `_jsonable` walks every item
            for k, v in data.items()
            if self.include_input or not isinstance(v, Mapping)
        }

    def _notes(self, request: ToolCallRequest) -> list[dict[str, Any]]:
        """What other plugins recorded about this call (cache hit, retry attempts, approval)."""
        return [self._public(e) for e in request.artifact if e.get("type") in self.note_types]


def _message_id(runtime: Any, tool_call_id: str) -> str | None:
    """The id of the AIMessage that asked for this call, found in the graph state."""
    state = getattr(runtime, "state", None)
    messages = state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)
    for message in reversed(messages or ()):
        if isinstance(message, AIMessage) and any(call.get("id") == tool_call_id for call in message.tool_calls):
            return message.id
    return None


def _error_of(result: Any) -> str | None:
    if isinstance(result, CallToolResult) and result.is_error:
        return result_text(result) or "the tool reported an error"
    if isinstance(result, InputRequiredResult):
        return "the server asked for user input, and no plugin answered it"
    if isinstance(result, ToolMessage) and result.status == "error":
        return result.text or "the tool reported an error"
    return None


def _output(result: Any) -> Any:
    """Structured content when the server sent it, else the text."""
    if isinstance(result, CallToolResult):
        return result.structured_content if result.structured_content is not None else result_text(result)
    if isinstance(result, ToolMessage):
        return output_of_message(result)
    return None  # a Command: the graph update speaks for itself


def output_of_message(message: ToolMessage) -> Any:
    """The output a ToolMessage from the bridge carries: structured content from its artifact
    when present, else its text (the same value the `finished` event has)."""
    for entry in message.artifact if isinstance(message.artifact, list) else ():
        if isinstance(entry, dict) and entry.get("type") == STRUCTURED_CONTENT:
            return entry.get("data")
    return message.text


def _jsonable(value: Any) -> Any:
    """Keep stream events JSON-friendly: anything exotic becomes its string form."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool | type(None)):
        return value
    return str(value)
