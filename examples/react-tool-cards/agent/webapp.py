"""The custom app LangGraph's server mounts (`"http": {"app": ...}`): the built page at
`/cards/` (same origin as the API, so no CORS set-up), the sign-in callback at
`/cards/signed-in`, and the lifespan that closes this process's MCP sessions. CARDS_DIST names
the built page (default ../dist, `npm run build`)."""

from __future__ import annotations

import os
from pathlib import Path

from mcp_tools import lifespan
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

DIST = Path(os.environ.get("CARDS_DIST") or Path(__file__).parent.parent / "dist")
CALLBACK_HEADERS = {
    "Cache-Control": "no-store",  # the address carries a one-time code: keep it out of caches
    "Referrer-Policy": "no-referrer",  # ... and out of the Referer of anything the page loads
}


async def signed_in(request: Request) -> FileResponse:
    """Where the authorization server sends the person back (`redirect_uri`): the page's own
    bundle, which hands `code` and `state` to the waiting chat tab (src/signin.jsx)."""
    return FileResponse(DIST / "index.html", headers=CALLBACK_HEADERS)


app = Starlette(
    routes=[
        Route("/cards/signed-in", signed_in, methods=["GET"]),
        Mount("/cards", StaticFiles(directory=DIST, html=True, check_dir=False), name="cards"),
    ],
    lifespan=lifespan,
)
