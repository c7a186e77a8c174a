"""Reaching remote servers (issue 17): SSE servers, per-server `auth` and a custom HTTP
client for `url` servers, and a clear refusal of WebSocket URLs. Every test talks to a real
MCPServer served by uvicorn over streamable HTTP or SSE."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from langchain_core.messages import ToolMessage
from mcp.client.auth import OAuthClientProvider
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl

from mcpbridge import ConfigError, MCPBridge, ServerConnectionError, Settings, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import HTTPServer, SessionProbe, serve_http
from tests.helpers.waiting import until
from tests.servers import oauth

TOKEN = "s3cr3t-token"
WATCHED = ("x-user", "x-static", "x-client", "authorization")

ACCESS_TTL = 5
"""Seconds an access token lives: the first calls finish well within it on a loaded machine."""


@dataclass
class Recorder:
    """What the server saw: the watched headers of every HTTP request, by path."""

    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    require_token: bool = False


def build(record: Recorder) -> Any:
    server = MCPServer("reach")

    @server.tool()
    async def seen(ctx: Context, pause: float = 0.0) -> str:
        """The watched headers of this call's HTTP request, as JSON."""
        await asyncio.sleep(pause)
        headers = ctx.headers or {}
        return json.dumps({name: headers[name] for name in WATCHED if name in headers}, sort_keys=True)

    @server.tool()
    def big(size: int) -> str:
        """`size` bytes of text."""
        return "x" * size

    return server


def recording(record: Recorder, app: Any) -> Any:
    """`app` behind a gate that records each request and, if asked, wants our bearer token."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {key.decode().lower(): value.decode() for key, value in scope["headers"]}
            record.requests.append((scope["path"], {name: headers[name] for name in WATCHED if name in headers}))
            if record.require_token and headers.get("authorization") != f"Bearer {TOKEN}":
                await send({"type": "http.response.start", "status": 401, "headers": [(b"content-length", b"0")]})
                await send({"type": "http.response.body", "body": b""})
                return
        await app(scope, receive, send)

    return asgi


@dataclass
class Served:
    record: Recorder
    http: HTTPServer
    transport: str

    @property
    def config(self) -> dict[str, Any]:
        path = "/sse" if self.transport == "sse" else "/mcp"
        return {"url": self.http.base_url + path, "transport": self.transport}


def serve(transport: str, port: int | None = None, record: Recorder | None = None) -> Served:
    record = record or Recorder()
    server = build(record)
    app = server.sse_app() if transport == "sse" else server.streamable_http_app()
    return Served(record, serve_http(recording(record, app), port), transport)


@pytest.fixture(params=["http", "sse"])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    """The test server over streamable HTTP, then over SSE."""
    started = serve(request.param)
    yield started
    started.http.stop()


@pytest.fixture
def sse() -> Iterator[Served]:
    started = serve("sse")
    yield started
    started.http.stop()


def with_headers(headers: dict[str, str]) -> Any:
    async def interceptor(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(headers={**(request.headers or {}), **headers}))

    return interceptor


def user_from_args() -> Any:
    """Per-call header `x-user` from the call's own `user` argument (removed before sending)."""

    async def interceptor(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        args = dict(request.args)
        user = args.pop("user", None)
        headers = {**(request.headers or {}), "x-user": user} if user else request.headers
        return await handler(request.override(args=args, headers=headers))

    return interceptor


def seen(message: ToolMessage) -> dict[str, str]:
    content = message.content
    text = content if isinstance(content, str) else "".join(str(block["text"]) for block in content)  # type: ignore[index]
    found: dict[str, str] = json.loads(text)
    return found


class BearerAuth(httpx2.Auth):
    """An httpx2 Auth adding our bearer token (a class: a zero-argument factory of itself)."""

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        request.headers["Authorization"] = f"Bearer {TOKEN}"
        yield request


# -- SSE ---------------------------------------------------------------------------------


def test_transport_is_http_by_default_and_sse_when_asked() -> None:
    servers = Settings(
        servers={
            "plain": {"url": "https://example.com/mcp"},
            "http": {"url": "https://example.com/mcp", "transport": "http"},
            "sse": {"url": "https://example.com/sse", "transport": "sse"},
            "stdio": {"command": "server"},
            "inprocess": {"server": object()},
        }
    ).servers
    assert {name: config.transport for name, config in servers.items()} == {
        "plain": "http",
        "http": "http",
        "sse": "sse",
        "stdio": "stdio",
        "inprocess": "inprocess",
    }


async def test_static_and_per_call_headers_reach_the_server(served: Served) -> None:
    config = {**served.config, "headers": {"x-static": "static-7f3a"}}
    async with MCPBridge({"s": config}, plugins=[], interceptors=[with_headers({"x-user": "alice"})]) as bridge:
        assert seen(await bridge.call_tool("s", "seen")) == {"x-static": "static-7f3a", "x-user": "alice"}


async def test_concurrent_calls_over_sse_each_carry_their_own_headers(sse: Served) -> None:
    """One SSE session, one POST per message: each POST carries the headers of the call that sent it."""
    async with MCPBridge({"s": sse.config}, plugins=[], interceptors=[user_from_args()]) as bridge:
        users = [f"user-{i}" for i in range(12)]
        results = await asyncio.gather(
            *(bridge.call_tool("s", "seen", {"user": user, "pause": 0.05}, tool_call_id=user) for user in users)
        )
    assert [seen(result).get("x-user") for result in results] == users
    # The SSE stream itself (opened outside any call) carries no call's headers.
    assert all("x-user" not in headers for path, headers in sse.record.requests if path == "/sse")


async def test_headers_plugin_accepts_an_sse_server(sse: Served) -> None:
    plugin = {"servers": {"s": {"x-user": "literal:bob"}}}
    async with MCPBridge({"s": sse.config}, plugins=["headers"], plugin_settings={"headers": plugin}) as bridge:
        assert seen(await bridge.call_tool("s", "seen")) == {"x-user": "bob"}


async def test_an_sse_event_over_the_sdk_limit_ends_the_session_and_the_next_call_reconnects(sse: Served) -> None:
    async with MCPBridge({"s": sse.config}, plugins=[]) as bridge:
        with pytest.raises(ServerConnectionError, match="SSE stream closed.*1 MiB"):
            await bridge.call_tool("s", "big", {"size": 2 * 1024 * 1024})
        assert (await bridge.call_tool("s", "big", {"size": 10})).content == [{"type": "text", "text": "x" * 10}]


async def test_a_restarted_sse_server_is_noticed_and_reconnected(sse: Served) -> None:
    async with MCPBridge({"s": sse.config}, plugins=[]) as bridge:
        assert seen(await bridge.call_tool("s", "seen")) == {}
        session = SessionProbe(bridge, "s")
        port = sse.http.port
        sse.http.stop()
        # The GET stream ends with the server: the session is dropped.
        await until(lambda: not session.connected, "the session being dropped")
        sse.http = serve("sse", port, sse.record).http
        assert seen(await bridge.call_tool("s", "seen")) == {}


@pytest.mark.parametrize("url", ["ws://example.com/mcp", "wss://example.com/mcp", "WSS://example.com/mcp"])
def test_websocket_urls_are_refused_with_what_to_use_instead(url: str) -> None:
    with pytest.raises(ConfigError) as raised:
        MCPBridge({"s": {"url": url}}, plugins=[])
    message = str(raised.value)
    assert "mcp 2.x has no WebSocket client" in message
    assert "streamable HTTP" in message
    assert 'transport = "sse"' in message


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"command": "server", "transport": "sse"}, "only `url` servers take one"),
        ({"url": "https://example.com/mcp", "transport": "stdio"}, "only `url` servers take one"),
        ({"url": "https://example.com/mcp", "transport": "websocket"}, "servers.s.transport"),
        ({"command": "server", "auth": BearerAuth()}, "`auth` only applies to `url` servers"),
        ({"server": object(), "http_client": httpx2.AsyncClient}, "`http_client` only applies to `url` servers"),
        ({"url": "https://example.com/mcp", "auth": "tests.core.nowhere:Auth"}, "cannot be imported"),
        ({"url": "https://example.com/mcp", "auth": "no_colon"}, '"module:attribute"'),
        ({"url": "https://example.com/mcp", "auth": ("user", "password")}, "must be an httpx2.Auth"),
        ({"url": "https://example.com/mcp", "auth": lambda: "not auth"}, "must be an httpx2.Auth"),
        ({"url": "https://example.com/mcp", "auth": lambda: 1 / 0}, "its factory failed: ZeroDivisionError"),
        ({"url": "https://example.com/mcp", "http_client": "json:__name__"}, "must be a callable"),
    ],
)
def test_server_keys_that_do_not_fit_are_refused(table: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError, match="invalid mcpbridge configuration") as raised:
        MCPBridge({"s": table}, plugins=[])
    assert problem in str(raised.value)


# -- auth and a custom HTTP client -------------------------------------------------------


async def test_auth_reaches_the_server(served: Served) -> None:
    served.record.require_token = True
    async with MCPBridge({"s": served.config}, plugins=[]) as bridge:
        with pytest.raises(ServerConnectionError) as refused:
            await bridge.list_tools()
        assert refused.value.sent is False
    config = {**served.config, "auth": BearerAuth()}
    async with MCPBridge({"s": config}, plugins=[], interceptors=[with_headers({"x-user": "alice"})]) as bridge:
        assert seen(await bridge.call_tool("s", "seen")) == {"authorization": f"Bearer {TOKEN}", "x-user": "alice"}
    assert all(headers.get("authorization") == f"Bearer {TOKEN}" for _, headers in served.record.requests[-3:])


async def test_auth_and_http_client_as_import_strings_in_the_config_file(served: Served, tmp_path: Path) -> None:
    served.record.require_token = True
    file = tmp_path / "mcpbridge.toml"
    file.write_text(
        f"""
[servers.s]
url = "{served.config["url"]}"
transport = "{served.transport}"
auth = "tests.core.test_transports_reach:BearerAuth"
http_client = "tests.core.test_transports_reach:tagged_client"
"""
    )
    async with MCPBridge.from_config(file, plugins=[]) as bridge:
        assert isinstance(bridge.settings.servers["s"].auth, BearerAuth)
        assert seen(await bridge.call_tool("s", "seen")) == {"authorization": f"Bearer {TOKEN}", "x-client": "tagged"}


CLIENTS: list[dict[str, Any]] = []


def tagged_client(
    headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
) -> httpx2.AsyncClient:
    """A custom HTTP client factory: its own header, and a record of what it was given."""
    CLIENTS.append({"headers": dict(headers or {}), "timeout": timeout, "auth": auth})
    return httpx2.AsyncClient(headers={**(headers or {}), "x-client": "tagged"}, timeout=timeout, auth=auth)


async def test_a_custom_http_client_keeps_the_bridges_guarantees(served: Served) -> None:
    """The factory gets the static headers, timeout and auth; the bridge still adds per-call
    headers and bounds JSON results on the client it returns."""
    CLIENTS.clear()
    served.record.require_token = True
    config = {
        **served.config,
        "headers": {"x-static": "static-7f3a"},
        "auth": BearerAuth(),
        "http_client": tagged_client,
        "max_result_bytes": 64 * 1024,
    }
    async with MCPBridge({"s": config}, plugins=[], interceptors=[with_headers({"x-user": "carol"})]) as bridge:
        assert seen(await bridge.call_tool("s", "seen")) == {
            "authorization": f"Bearer {TOKEN}",
            "x-client": "tagged",
            "x-static": "static-7f3a",
            "x-user": "carol",
        }
        if served.transport == "http":  # SSE results arrive as events, bounded by the SDK
            message = await bridge.call_tool("s", "big", {"size": 128 * 1024})
            assert message.status == "error"
            assert "max_result_bytes=65536" in str(message.content)
            assert (await bridge.call_tool("s", "big", {"size": 3})).content == [{"type": "text", "text": "xxx"}]
    assert CLIENTS
    assert all(client["headers"] == {"x-static": "static-7f3a"} for client in CLIENTS)
    assert all(isinstance(client["auth"], BearerAuth) and client["timeout"] is not None for client in CLIENTS)


async def test_per_call_headers_stay_on_the_servers_origin(served: Served) -> None:
    """Requests an auth flow makes elsewhere (an authorization server) get no per-call headers."""
    elsewhere = serve("http")
    try:

        class SideTrip(httpx2.Auth):
            async def async_auth_flow(self, request: httpx2.Request) -> AsyncIterator[httpx2.Request]:  # type: ignore[override]
                yield httpx2.Request("GET", f"{elsewhere.http.base_url}/token")
                yield request

        config = {**served.config, "auth": SideTrip()}
        async with MCPBridge({"s": config}, plugins=[], interceptors=[with_headers({"x-user": "dave"})]) as bridge:
            assert seen(await bridge.call_tool("s", "seen")) == {"x-user": "dave"}
        assert [path for path, _ in elsewhere.record.requests].count("/token") >= 2
        assert all("x-user" not in headers for _, headers in elsewhere.record.requests)
    finally:
        elsewhere.http.stop()


# -- OAuth 2.1 end to end ----------------------------------------------------------------


class MemoryTokenStorage:
    """The `TokenStorage` of mcp's OAuthClientProvider, in memory (the user chooses where)."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class HeadlessBrowser:
    """Plays the user's browser: opens the authorization URL (the test server approves at
    once) and hands the code from the redirect back to the provider."""

    def __init__(self) -> None:
        self.visits: list[str] = []
        self.redirect = ""

    async def open(self, authorization_url: str) -> None:
        self.visits.append(authorization_url)
        async with httpx2.AsyncClient() as browser:
            response = await browser.get(authorization_url)
        assert response.status_code == 302, response.text
        self.redirect = response.headers["location"]

    async def callback(self) -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(self.redirect).query)
        return AuthorizationCodeResult(
            code=query["code"][0], state=query.get("state", [None])[0], iss=query.get("iss", [None])[0]
        )


def oauth_client(url: str, storage: MemoryTokenStorage, browser: HeadlessBrowser) -> OAuthClientProvider:
    metadata = OAuthClientMetadata(
        client_name="mcpbridge tests",
        redirect_uris=[AnyUrl("http://127.0.0.1:1/callback")],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope=oauth.SCOPE,
    )
    return OAuthClientProvider(url, metadata, storage, redirect_handler=browser.open, callback_handler=browser.callback)


@pytest.fixture(params=["http", "sse"])
def protected(request: pytest.FixtureRequest) -> Iterator[tuple[oauth.AuthorizationServer, dict[str, Any]]]:
    """The OAuth-protected server (tokens live 2 s) and its config, over streamable HTTP and SSE."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    provider = oauth.AuthorizationServer(access_ttl=ACCESS_TTL)
    if request.param == "sse":
        app = oauth.build(provider, base, "/sse").sse_app()
    else:
        app = oauth.build(provider, base).streamable_http_app()
    served = serve_http(app, port)
    path = "/sse" if request.param == "sse" else "/mcp"
    yield provider, {"url": f"{base}{path}", "transport": request.param}
    served.stop()


async def test_oauth_with_pkce_registration_and_refresh(
    protected: tuple[oauth.AuthorizationServer, dict[str, Any]],
) -> None:
    provider, config = protected
    url = config["url"]
    storage, browser = MemoryTokenStorage(), HeadlessBrowser()
    auth = oauth_client(url, storage, browser)
    async with MCPBridge({"s": {**config, "auth": auth}}, plugins=[]) as bridge:
        with pytest.raises(ServerConnectionError):  # the same server, without auth
            async with MCPBridge({"s": config}, plugins=[]) as anonymous:
                await anonymous.list_tools()

        first = await bridge.call_tool("s", "whoami")
        assert storage.client_info is not None  # registered itself (dynamic client registration)
        assert first.content == [{"type": "text", "text": f"ada via {storage.client_info.client_id}"}]
        assert len(browser.visits) == 1
        assert "code_challenge_method=S256" in browser.visits[0]  # PKCE (the server checks the verifier)
        assert (provider.code_exchanges, provider.refreshes) == (1, 0)

        await asyncio.sleep(ACCESS_TTL + 0.5)  # the access token expires: the provider refreshes it, no browser
        again = await bridge.call_tool("s", "whoami")
        assert again.status == "success", again.content
        assert (len(browser.visits), provider.code_exchanges, provider.refreshes) == (1, 1, 1)

    # A new bridge with the same token storage needs no browser either.
    async with MCPBridge({"s": {**config, "auth": oauth_client(url, storage, browser)}}, plugins=[]) as later:
        assert (await later.call_tool("s", "whoami")).status == "success"
    assert (len(browser.visits), provider.code_exchanges) == (1, 1)
