"""The graph LangGraph's server serves (`"graphs": {"agent": "./agent.py:graph"}`): an agent
whose tools are this worker process's MCP tools (mcp_tools.py), live: `LiveCatalogue` gives
each model call the tools as the servers list them now, so a tool a server adds, changes or
removes while the server runs reaches the running agents at their next model call.

The model is `AGENT_MODEL`: any `init_chat_model` name (e.g. `openai:gpt-4.1-mini`), or
`offline` (the default) for a stand-in that needs no API key. No checkpointer here: the
server brings its own, which the approval plugin's interrupts need.

`stream_transformers` (read by the server from this module) lets the events plugin's events
reach front ends on LangGraph's event-streaming protocol v2, such as @langchain/react's
`useStream`, which otherwise never get the `custom` stream.
"""

from __future__ import annotations

import os

from langchain.agents import create_agent
from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel
from mcp_tools import bridge
from mcpbridge_catalogue import LiveCatalogue
from mcpbridge_events import stream_transformers

__all__ = ["graph", "stream_transformers"]


def model() -> BaseChatModel:
    name = os.environ.get("AGENT_MODEL", "offline")
    if name == "offline":
        from offline_model import OfflineModel

        return OfflineModel()
    return init_chat_model(name)


graph = create_agent(
    model(),
    tools=[],
    middleware=[LiveCatalogue(bridge)],
    system_prompt="You keep the user's notes with the notes tools.",
)
