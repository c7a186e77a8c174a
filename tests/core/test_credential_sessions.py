"""A call that carries its own `Authorization` goes over a session opened with that credential.

mcp 2.x's streamable HTTP server binds a session to the credential that opened it and answers
404 ("Session not found") to a request with any other. Calls of different people, each with
their own bearer token (an interceptor puts it there, as the auth and headers plugins do), must
then never share a session: each credential gets a session of its own, the server sees each
call as the person it belongs to, and none is refused, whatever the interleaving."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge._session import connections
from mcpbridge.testing import serve_http

PEOPLE = ("alice", "bob", "carol")
LISTER = "lister"
caller: contextvars.ContextVar[str | None] = contextvars.ContextVar("caller", default=None)


class Seen:
    """The server's app, noting who opened each session (a POST without `Mcp-Session-Id`), who
    ended one (DELETE), and every 404 it answered."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.opened: list[str] = []
        self.closed: list[str] = []
        self.refused = 0
        self.a_close = threading.Event()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {key.decode().lower(): value.decode() for key, value in scope["headers"]}
        who = headers.get("authorization", "").removeprefix("Bearer token-")
        if scope["method"] == "POST" and "mcp-session-id" not in headers:
            self.opened.append(who)
        elif scope["method"] == "DELETE":
            self.closed.append(who)
            self.a_close.set()

        async def noting(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] == 404:
                self.refused += 1
            await send(message)

        await self.app(scope, receive, noting)


class Tokens:
    """Each person's token is `token-<name>`; the subject is the name."""

    async def verify_token(self, token: str) -> AccessToken | None:
        name = token.removeprefix("token-")
        if name not in (*PEOPLE, LISTER):
            return None
        return AccessToken(token=token, client_id="mcpbridge", scopes=[], subject=name)


def build() -> MCPServer:
    server = MCPServer(
        "bound",
        token_verifier=Tokens(),
        auth=AuthSettings(
            issuer_url="http://127.0.0.1:9/",
            resource_server_url=None,
        ),
    )

    @server.tool()
    async def whoami(pause: float = 0.0) -> str:
        """The caller's name, after `pause` seconds."""
        await asyncio.sleep(pause)
        token = get_access_token()
        return token.subject if token and token.subject else "nobody"

    return server


@pytest.fixture
def seen() -> Iterator[Seen]:
    app = Seen(build().streamable_http_app())
    served = serve_http(app)
    app.url = served.url  # type: ignore[attr-defined]
    yield app
    served.stop()


async def as_caller(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """Puts the caller's own bearer token on the call, as a per-user credential plugin does."""
    who = caller.get()
    if who is None:
        return await handler(request)
    return await handler(request.override(headers={**(request.headers or {}), "Authorization": f"Bearer token-{who}"}))


def config(seen: Seen) -> dict[str, Any]:
    """The legacy protocol: its sessions are stateful, each bound to the credential that opened it."""
    return {
        "url": seen.url,  # type: ignore[attr-defined]
        "headers": {"Authorization": f"Bearer token-{LISTER}"},
        "mode": "legacy",
    }


async def call(tool: Any, who: str, pause: float = 0.0) -> str:
    caller.set(who)
    message = await tool.ainvoke({"type": "tool_call", "name": tool.name, "args": {"pause": pause}, "id": f"c-{who}"})
    assert message.status == "success", message.content
    return message.text


async def test_each_credential_is_answered_as_its_own_person_on_its_own_session(seen: Seen) -> None:
    async with MCPBridge({"s": config(seen)}, interceptors=[as_caller], plugins=[]) as bridge:
        (tool,) = await bridge.list_tools()  # listed on the server's own session, with its static credential
        rounds = [(who, 0.05 * (i % 3)) for i in range(4) for who in PEOPLE]
        answers = await asyncio.gather(*(asyncio.create_task(call(tool, who, pause)) for who, pause in rounds))
        assert answers == [who for who, _ in rounds]
        assert await call(tool, "alice") == "alice"
        assert sorted(seen.opened) == sorted([LISTER, *PEOPLE])  # one session per credential, opened once
        assert seen.refused == 0  # no call was ever sent on another credential's session
    assert sorted(seen.closed) == sorted([LISTER, *PEOPLE])  # all closed with the bridge


async def test_idle_credential_sessions_beyond_the_bound_are_closed(
    seen: Seen, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connections, "CREDENTIAL_SESSIONS", 2)
    async with MCPBridge({"s": config(seen)}, interceptors=[as_caller], plugins=[]) as bridge:
        (tool,) = await bridge.list_tools()
        for who in PEOPLE:
            assert await call(tool, who) == who
        # alice's, the least recently used idle one, is closed in the background
        assert await asyncio.to_thread(seen.a_close.wait, 30)
        assert seen.closed == ["alice"]
        assert await call(tool, "alice") == "alice"  # and opened again when she calls
        assert seen.opened.count("alice") == 2
        assert seen.refused == 0


async def test_a_call_without_its_own_credential_stays_on_the_servers_session(seen: Seen) -> None:
    async with MCPBridge({"s": config(seen)}, interceptors=[as_caller], plugins=[]) as bridge:
        (tool,) = await bridge.list_tools()
        caller.set(None)
        message = await tool.ainvoke({"type": "tool_call", "name": tool.name, "args": {}, "id": "c0"})
        assert message.text == LISTER
        assert seen.opened == [LISTER]
