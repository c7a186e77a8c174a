"""What a front end on LangGraph's event-streaming protocol v2 (`@langchain/react`'s
`useStream`, `astream_events(version="v3")`) needs from the server to show every MCP call.

That protocol asks the graph only for the stream modes its registered transformers need,
and none of the defaults needs `custom`: the lifecycle events never leave the server unless
`CustomTransformer` is registered. `stream_transformers()` registers it, either as the graph
module's `stream_transformers` export (read by langgraph-api) or at compile time
(`create_agent(..., transformers=stream_transformers())`).

An MCP error is a result, not an exception: the tool returns a ToolMessage with
`status="error"`, so LangGraph's `tools` channel reports `tool-finished`. `LifecycleEvents`
also writes `tool-error` to that channel (`runs.report_tool_error`), as LangGraph does for a
tool that raises, so `useStream().toolCalls` marks the call `"error"` while the run goes on.
"""

from __future__ import annotations

from langgraph.stream import CustomTransformer, StreamTransformer


def stream_transformers() -> list[type[StreamTransformer]]:
    """The stream transformers that carry this plugin's events on the v2 protocol.

    Export it from the graph module langgraph.json names (`from mcpbridge_events import
    stream_transformers`): langgraph-api calls it for every v2 run. Or pass its result to
    `create_agent(..., transformers=...)` / `StateGraph.compile(transformers=...)`, which
    also serves `astream_events(version="v3")` in your own process. The older endpoints
    (`stream_mode="custom"`) need neither."""
    return [CustomTransformer]
