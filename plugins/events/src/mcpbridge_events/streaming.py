"""What a front end on LangGraph's event-streaming protocol v2 (`@langchain/react`'s
`useStream`, `astream_events(version="v3")`) needs from the server to show every MCP call.

That protocol asks the graph only for the stream modes its registered transformers need,
and none of the defaults needs `custom`: the lifecycle events never leave the server unless
`CustomTransformer` is registered. `stream_transformers()` registers it, either as the graph
module's `stream_transformers` export (read by langgraph-api) or at compile time
(`create_agent(..., transformers=stream_transformers())`).

An MCP error is a result, not an exception: the tool returns a ToolMessage with
`status="error"`, so LangGraph's `tools` channel reports `tool-finished`. `ToolErrorEvents`
also writes `tool-error` to that channel, as LangGraph does for a tool that raises, so
`useStream().toolCalls` marks the call `"error"` while the run goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.pregel._tools import StreamToolCallHandler  # the `tools` channel's writer; no public name
from langgraph.stream import CustomTransformer, StreamTransformer

from mcpbridge import ToolCallHandler, ToolCallRequest
from mcpbridge_events.lifecycle import _error_of, _namespace


def stream_transformers() -> list[type[StreamTransformer]]:
    """The stream transformers that carry this plugin's events on the v2 protocol.

    Export it from the graph module langgraph.json names (`from mcpbridge_events import
    stream_transformers`): langgraph-api calls it for every v2 run. Or pass its result to
    `create_agent(..., transformers=...)` / `StateGraph.compile(transformers=...)`, which
    also serves `astream_events(version="v3")` in your own process. The older endpoints
    (`stream_mode="custom"`) need neither."""
    return [CustomTransformer]


class ToolErrorEvents:
    """Writes `tool-error` (`{"event": "tool-error", "tool_call_id", "message"}`) to
    LangGraph's `tools` channel when a call ends in an MCP error result, so a front end sees
    the error there as it does for a tool that raises. Silent when nobody streams `tools`."""

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        result = await handler(request)
        error = _error_of(result)
        if error is not None and request.runtime is not None and request.tool_call_id is not None:
            report_tool_error(request.runtime, request.tool_call_id, error)
        return result


def report_tool_error(runtime: Any, tool_call_id: str, message: str) -> bool:
    """Write a `tool-error` event for `tool_call_id` to the `tools` stream of the run that
    `runtime` belongs to; False when that run does not stream `tools`."""
    config: Mapping[str, Any] = getattr(runtime, "config", None) or {}
    writer = _tools_writer(config.get("callbacks"))
    if writer is None:
        return False
    writer.stream(
        (tuple(_namespace(runtime)), "tools", {"event": "tool-error", "tool_call_id": tool_call_id, "message": message})
    )
    return True


def _tools_writer(callbacks: Any) -> StreamToolCallHandler | None:
    """LangGraph's `tools` channel handler among a run's callbacks (a manager or a list)."""
    handlers = getattr(callbacks, "handlers", callbacks)
    for candidate in handlers if isinstance(handlers, list) else ():
        if isinstance(candidate, StreamToolCallHandler):
            return candidate
    return None
