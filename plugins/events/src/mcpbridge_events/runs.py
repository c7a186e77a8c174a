"""What the plugin reads of the LangGraph run a call belongs to (the node's namespace), and
what it writes there beside the custom stream (`tool-error` on the `tools` channel)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpbridge import tools_stream_writer


def namespace_of(runtime: Any) -> list[str]:
    """The graph path of the node running the call, as `astream(subgraphs=True)` reports it:
    the checkpoint namespace without the tool task's own segment."""
    config = getattr(runtime, "config", None) or {}
    checkpoint_ns = str(config.get("configurable", {}).get("checkpoint_ns", ""))
    return checkpoint_ns.split("|")[:-1] if checkpoint_ns else []


def report_tool_error(runtime: Any, tool_call_id: str, message: str) -> bool:
    """Write a `tool-error` event for `tool_call_id` to the `tools` stream of the run that
    `runtime` belongs to, as LangGraph does for a tool that raises (`message` is the text);
    False when that run does not stream `tools`."""
    config: Mapping[str, Any] = getattr(runtime, "config", None) or {}
    write = tools_stream_writer(config.get("callbacks"))
    if write is None:
        return False
    event = {"event": "tool-error", "tool_call_id": tool_call_id, "message": message}
    write((tuple(namespace_of(runtime)), "tools", event))
    return True
