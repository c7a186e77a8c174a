"""The custom app LangGraph's server mounts (`"http": {"app": ...}`): the built page at
`/cards/` (same origin as the API, so no CORS set-up) and the lifespan that closes this
process's MCP sessions. CARDS_DIST names the built page (default ../dist, `npm run build`)."""

from __future__ import annotations

import os
from pathlib import Path

from mcp_tools import lifespan
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

DIST = Path(os.environ.get("CARDS_DIST") or Path(__file__).parent.parent / "dist")

app = Starlette(
    routes=[Mount("/cards", StaticFiles(directory=DIST, html=True, check_dir=False), name="cards")],
    lifespan=lifespan,
)
