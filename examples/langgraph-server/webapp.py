"""The custom app LangGraph's server mounts (`"http": {"app": ...}` in langgraph.json): no
routes of its own, only the lifespan that closes this process's MCP sessions at shutdown."""

from __future__ import annotations

from mcp_tools import lifespan
from starlette.applications import Starlette

app = Starlette(lifespan=lifespan)
