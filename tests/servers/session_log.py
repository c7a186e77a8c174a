"""An ASGI wrapper around a streamable HTTP MCP app that records the sessions clients open
(the `Mcp-Session-Id` the server hands out) and close (a DELETE the server accepted).

Only the legacy protocol (2025-11-25) has server-side sessions; the stateless 2026-07-28
protocol opens none, so connect with `mode = "legacy"` to see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SESSION_HEADER = b"mcp-session-id"


@dataclass
class SessionLog:
    """`SessionLog(app)` is the app to serve; `opened` and `closed` are session ids in order."""

    app: Any
    opened: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        asked = _header(scope.get("headers", ()))

        async def record(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] < 300:
                given = _header(message.get("headers", ()))
                if asked is None and given is not None:
                    self.opened.append(given)
                if scope["method"] == "DELETE" and asked is not None:
                    self.closed.append(asked)
            await send(message)

        await self.app(scope, receive, record)


def _header(headers: Any) -> str | None:
    for name, value in headers:
        if name.lower() == SESSION_HEADER:
            return bytes(value).decode()
    return None
