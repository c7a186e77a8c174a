"""The bridge of this worker process: opened once, when the server imports the graph, and
closed by the app's lifespan (webapp.py) when the server shuts down.

LangGraph's server imports the graph module once per process and runs every run of every
thread on that one compiled graph, so its tools, and the MCP sessions behind them, are per
process too. A graph factory that opened a bridge would open sessions per run: do not.

The bridge runs its sessions on a loop thread of its own (`with MCPBridge(...)`): the graph
module is imported inside the server's event loop, where nothing can be awaited, and the
tools then hand each call to that thread. This module is imported with a plain `import`
from agent.py and webapp.py, so both see the same bridge, however the server loads them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcpbridge import MCPBridge

CONFIG = Path(__file__).with_name("mcpbridge.toml")

_lifetime = contextlib.ExitStack()
bridge = _lifetime.enter_context(MCPBridge.from_config(CONFIG))
bridge.list_tools_sync()  # connects now, one session per server for this process: a bad config fails at start


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """The server's lifespan: nothing to open (the graph's import did), close at shutdown."""
    try:
        yield
    finally:
        await asyncio.to_thread(_lifetime.close)  # ends every session, then the loop thread
