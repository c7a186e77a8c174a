"""The bridge of this worker process: opened once, when the server imports the graph, and
closed by the app's lifespan (webapp.py) when the server stops (as examples/langgraph-server
explains)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcpbridge import MCPBridge, MCPTool

HERE = Path(__file__).parent
os.environ.setdefault("MCP_PYTHON", sys.executable)  # the stdio servers run on this Python
os.environ.setdefault("CARDS_SERVERS", str(HERE / "servers.py"))

_lifetime = contextlib.ExitStack()
bridge = _lifetime.enter_context(MCPBridge.from_config(HERE / "mcpbridge.toml"))
tools: list[MCPTool] = bridge.list_tools_sync()


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """Nothing to open (the graph's import did); close every session at shutdown."""
    try:
        yield
    finally:
        await asyncio.to_thread(_lifetime.close)
