"""The graph behind the cards: `create_agent` with this process's MCP tools and an offline
model (model.py), so it runs without an API key. The sign-in server's tools (when
MCPBRIDGE_EXAMPLE_SIGNIN_URL names one, mcp_tools.py) come through the live catalogue instead:
each model call is given the tools that server lists to the run's person, and a model call
pauses on a sign-in card when it lists nothing without them.

`stream_transformers` is what @langchain/react needs: its runs use LangGraph's event-streaming
protocol v2, which streams only the modes its transformers ask for, and langgraph-api reads
this export of the graph module. It adds the `custom` stream, where the events plugin writes
every call's progress, updates and interrupts.
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from mcp_tools import LIVE_SERVERS, bridge, tools
from mcpbridge_events import stream_transformers
from model import OfflineModel

__all__ = ["graph", "stream_transformers"]


def live_catalogue() -> list[Any]:
    """The middleware that lists LIVE_SERVERS' tools for each run, as its person (none without them)."""
    if not LIVE_SERVERS:
        return []
    from mcpbridge_catalogue import LiveCatalogue  # only with the sign-in server: mcpbridge-catalogue

    return [LiveCatalogue(bridge, servers=LIVE_SERVERS)]


graph = create_agent(
    OfflineModel(), tools, system_prompt="You answer with the demo tools.", middleware=live_catalogue()
)
