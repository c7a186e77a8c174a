"""A server that refuses the credentials is not "unreachable" (issue 28): over streamable HTTP
and SSE, at connect and mid-session, from the bridge and the CLI, the error is an
`AuthenticationError` with the status, the server's challenge and text (redacted, cut) and
what to check; an OAuth flow that fails is one too, and any other HTTP error names its status."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import OAuthClientMetadata
from mcpbridge_cli import main as cli
from pydantic import AnyUrl

from mcpbridge import AuthenticationError, MCPBridge, ServerConnectionError
from mcpbridge.testing import HTTPServer, serve_http
from tests.core.test_transports_reach import MemoryTokenStorage
from tests.servers import bearer

WRONG = "wr0ng-s3cret-token"


@pytest.fixture(scope="module", params=["http", "sse"])
def gated(request: pytest.FixtureRequest) -> Iterator[tuple[bearer.BearerGate, dict[str, Any]]]:
    """The bearer-protected server and its config (no token yet), over streamable HTTP and SSE."""
    server = bearer.build()
    gate = bearer.BearerGate(server.sse_app() if request.param == "sse" else server.streamable_http_app())
    served = serve_http(gate)
    path = "/sse" if request.param == "sse" else "/mcp"
    yield gate, {"url": served.base_url + path, "transport": request.param, "connect_timeout": 10}
    served.stop()


def token(value: str) -> dict[str, Any]:
    return {"headers": {"Authorization": f"Bearer {value}"}}


@pytest.mark.parametrize("given", [{}, token(WRONG)], ids=["no token", "wrong token"])
async def test_a_refused_token_says_status_challenge_text_and_fix(
    gated: tuple[bearer.BearerGate, dict[str, Any]], given: dict[str, Any]
) -> None:
    async with MCPBridge({"s": {**gated[1], **given}}, plugins=[]) as bridge:
        with pytest.raises(AuthenticationError) as refused:
            await bridge.list_tools()
    error = refused.value
    assert isinstance(error, ServerConnectionError)
    assert error.sent is False
    assert (error.status, error.challenge) == (401, bearer.CHALLENGE)
    text = str(error)
    assert text.startswith("MCP server 's' refused the credentials: HTTP 401 Unauthorized (WWW-Authenticate: Bearer")
    assert "the server said: invalid or expired token" in text
    assert "check `headers.Authorization` / `auth` for server 's'" in text
    assert "unreachable" not in text
    assert WRONG not in text


async def test_a_forbidden_token_names_403_and_the_servers_reason(
    gated: tuple[bearer.BearerGate, dict[str, Any]],
) -> None:
    async with MCPBridge({"s": {**gated[1], **token(bearer.READ_ONLY_TOKEN)}}, plugins=[]) as bridge:
        with pytest.raises(
            AuthenticationError, match="HTTP 403 Forbidden .*insufficient_scope.*lack a scope"
        ) as refused:
            await bridge.list_tools()
    assert refused.value.status == 403


async def test_a_token_revoked_mid_session_fails_the_call_as_refused() -> None:
    gate = bearer.BearerGate(bearer.build().streamable_http_app())
    served = serve_http(gate)
    try:
        async with MCPBridge({"s": {"url": served.url, **token(bearer.TOKEN)}}, plugins=[]) as bridge:
            assert (await bridge.call_tool("s", "echo", {"text": "hi"})).content[0]["text"] == "hi"  # type: ignore[index]
            gate.accept = "rotated"
            with pytest.raises(
                AuthenticationError, match="tool 'echo' on server 's' refused the credentials: HTTP 401"
            ):
                await bridge.call_tool("s", "echo", {"text": "again"})
            gate.accept = bearer.TOKEN  # the same session goes on once the credentials fit again
            assert (await bridge.call_tool("s", "echo", {"text": "back"})).status == "success"
    finally:
        served.stop()


async def test_an_oauth_flow_that_fails_is_an_authentication_error() -> None:
    served = serve_http(bearer.BearerGate(bearer.build().streamable_http_app()))
    try:
        metadata = OAuthClientMetadata(redirect_uris=[AnyUrl("http://127.0.0.1:9/callback")], client_name="t")
        auth = OAuthClientProvider(served.base_url, metadata, MemoryTokenStorage())
        async with MCPBridge({"s": {"url": served.url, "auth": auth}}, plugins=[]) as bridge:
            with pytest.raises(
                AuthenticationError, match=r"refused the credentials: its `auth` flow failed: OAuth\w*Error"
            ):
                await bridge.list_tools()
    finally:
        served.stop()


def unavailable(text: bytes) -> Any:
    """An app answering every request with 503 and an HTML page."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    async def endpoint(request: Any) -> HTMLResponse:
        return HTMLResponse(text, status_code=503)

    return Starlette(routes=[Route("/mcp", endpoint, methods=["GET", "POST", "DELETE"])])


async def test_another_http_error_names_its_status_and_a_cut_text() -> None:
    served: HTTPServer = serve_http(unavailable(b"<h1>down for maintenance</h1>" + b"x" * 100_000))
    try:
        async with MCPBridge({"s": {"url": served.url, "mode": "legacy"}}, plugins=[]) as bridge:
            with pytest.raises(ServerConnectionError) as failed:
                await bridge.list_tools()
    finally:
        served.stop()
    assert not isinstance(failed.value, AuthenticationError)
    assert "HTTP 503 Service Unavailable (the server said: <h1>down for maintenance</h1>xxx" in str(failed.value)
    assert len(str(failed.value)) < 5000


def test_the_cli_prints_the_refusal(
    gated: tuple[bearer.BearerGate, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = gated[1]
    file = tmp_path / "mcpbridge.toml"
    lines = [f"{key} = {json.dumps(value)}" for key, value in config.items()]
    file.write_text("\n".join(["[servers.s]", *lines, "[servers.s.headers]", f'Authorization = "Bearer {WRONG}"']))
    assert cli(["tools", "--config", str(file)]) == 1
    err = capsys.readouterr().err
    assert "mcpbridge: error: MCP server 's' refused the credentials: HTTP 401 Unauthorized" in err
    assert "check `headers.Authorization` / `auth`" in err
    assert WRONG not in err
