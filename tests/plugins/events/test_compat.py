"""Every private name of a dependency the events plugin uses is still there, and does what
`mcpbridge_events._compat` expects. When a release removes or changes one, this fails with
the hint "<distribution> <version> removed `<name>`: update mcpbridge_events._compat"
(importing the module fails with it too)."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from langgraph.config import get_config
from langgraph.graph import START, StateGraph
from mcpbridge_events import _compat


class State(TypedDict):
    seen: list[str]


def test_langgraph_tools_channel_writer_is_among_a_tools_runs_callbacks() -> None:
    """`StreamToolCallHandler` is the callback a run that streams `tools` carries, and its
    `stream` writes a `(namespace, "tools", payload)` chunk to that run."""

    def node(state: State) -> dict[str, Any]:
        callbacks = get_config()["callbacks"]
        handlers = getattr(callbacks, "handlers", callbacks) or []
        writer = next((h for h in handlers if isinstance(h, _compat.StreamToolCallHandler)), None)
        if writer is None:
            return {"seen": []}
        writer.stream(((), "tools", {"event": "tool-error", "tool_call_id": "c1", "message": "boom"}))
        return {"seen": [type(writer).__name__]}

    graph = StateGraph(State).add_node("node", node).add_edge(START, "node").compile()
    name = "langgraph.pregel._tools.StreamToolCallHandler"
    chunks = list(graph.stream({"seen": []}, stream_mode=["tools", "values"]))
    if ("tools", {"event": "tool-error", "tool_call_id": "c1", "message": "boom"}) not in chunks:
        pytest.fail(f"{_compat.removed('langgraph', name)} (a `tools` run carries no such writer: {chunks})")
