"""The bridge of this worker process: opened once, when the server imports the graph, and
closed by the app's lifespan (webapp.py) when the server stops (as examples/langgraph-server
explains).

With MCPBRIDGE_EXAMPLE_SIGNIN_URL set (the URL of an MCP server that acts for the person and
asks each one to sign in with OAuth, e.g. `python -m tests.servers.signin_server --port 8765` from the repository root),
the bridge also gets that server, as `workspace`, the auth plugin (mcpbridge-auth) and the
catalogue plugin (mcpbridge-catalogue): its calls pause on a sign-in card until the person has
signed in. The authorization server sends the person back to this app's `/cards/signed-in`
(webapp.py) on the URL `langgraph dev` serves (LANGGRAPH_API_URL), or
MCPBRIDGE_EXAMPLE_REDIRECT_URI.

That server is not listed here, at import: it may refuse to list its tools to no one, and it
lists some tools only to a signed-in person. Its tools are listed for each run, as the run's
person, by the agent's live catalogue (`LIVE_SERVERS`, agent.py), whose model call pauses on a
sign-in card when the server will not list without the person.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcpbridge import MCPBridge, MCPTool, load_settings

HERE = Path(__file__).parent
os.environ.setdefault("MCP_PYTHON", sys.executable)  # the stdio servers run on this Python
os.environ.setdefault("CARDS_SERVERS", str(HERE / "servers.py"))
SIGN_IN_SERVER = "workspace"
SIGN_IN_URL = os.environ.get("MCPBRIDGE_EXAMPLE_SIGNIN_URL")
LIVE_SERVERS: list[str] = [SIGN_IN_SERVER] if SIGN_IN_URL else []
"""The servers listed for each run by the agent's live catalogue, rather than here."""


def open_bridge() -> MCPBridge:
    """mcpbridge.toml's bridge, plus the sign-in server, the auth plugin and the catalogue
    plugin when one is named."""
    settings = load_settings(HERE / "mcpbridge.toml")
    url = SIGN_IN_URL
    if not url:
        return MCPBridge(settings=settings)
    app = os.environ.get("LANGGRAPH_API_URL") or "http://127.0.0.1:2024"
    auth = {
        "servers": [SIGN_IN_SERVER],
        "redirect_uri": os.environ.get("MCPBRIDGE_EXAMPLE_REDIRECT_URI") or f"{app.rstrip('/')}/cards/signed-in",
        "identity": "config.configurable.user_id",  # the page sends it with every run
    }
    return MCPBridge(
        settings=settings,
        servers={SIGN_IN_SERVER: {"url": url}},
        plugins=[*(settings.plugins.enabled or ()), "auth", "catalogue"],
        plugin_settings={"auth": auth},
    )


_lifetime = contextlib.ExitStack()
bridge = _lifetime.enter_context(open_bridge())
tools: list[MCPTool] = bridge.list_tools_sync(servers=[s for s in bridge.servers if s not in LIVE_SERVERS])


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """Nothing to open (the graph's import did); close every session at shutdown."""
    try:
        yield
    finally:
        await asyncio.to_thread(_lifetime.close)
