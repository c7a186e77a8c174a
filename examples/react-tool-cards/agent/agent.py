"""The graph behind the cards: `create_agent` with this process's MCP tools and an offline
model (model.py), so it runs without an API key.

`stream_transformers` is what @langchain/react needs: its runs use LangGraph's event-streaming
protocol v2, which streams only the modes its transformers ask for, and langgraph-api reads
this export of the graph module. It adds the `custom` stream, where the events plugin writes
every call's progress, updates and interrupts.
"""

from __future__ import annotations

from langchain.agents import create_agent
from mcp_tools import tools
from mcpbridge_events import stream_transformers
from model import OfflineModel

__all__ = ["graph", "stream_transformers"]

graph = create_agent(OfflineModel(), tools, system_prompt="You answer with the demo tools.")
