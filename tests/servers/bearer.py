"""An MCP server behind a bearer-token check, as deployed servers answer: no token or a wrong
one gets `401` with a `WWW-Authenticate` challenge and a text body; a token without the
needed scope gets `403` with an OAuth-style JSON body; neither reads the request. `BearerGate(app)` guards any ASGI app
(streamable HTTP or SSE); `accept` is the token it takes, settable while it serves."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer

from mcpbridge.testing import make_server

TOKEN = "good-token-4711"
READ_ONLY_TOKEN = "read-only-token-0815"
CHALLENGE = 'Bearer realm="mcp", error="invalid_token", error_description="The access token expired"'


def echo(text: str) -> str:
    """Repeat the text."""
    return text


def build() -> MCPServer:
    return make_server(echo, name="bearer")


@dataclass
class BearerGate:
    app: Any
    accept: str = TOKEN

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode().lower(): value.decode() for key, value in scope["headers"]}
        given = headers.get("authorization", "")
        if given == f"Bearer {READ_ONLY_TOKEN}":
            body = {"error": "insufficient_scope", "error_description": "the token lacks scope mcp:tools"}
            await _answer(send, 403, json.dumps(body).encode(), b"application/json")
        elif given != f"Bearer {self.accept}":
            said = f"invalid or expired token: {given!r}".encode()  # some servers quote what they got
            await _answer(send, 401, said, b"text/plain", challenge=CHALLENGE)
        else:
            await self.app(scope, receive, send)


async def _answer(send: Any, status: int, body: bytes, content_type: bytes, *, challenge: str | None = None) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    if challenge:
        headers.append((b"www-authenticate", challenge.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
