"""A loopback OAuth 2.1 authorization server and the MCP server it protects, built from mcp's
own server-side auth pieces (`create_auth_routes` over an in-memory
`OAuthAuthorizationServerProvider`, the bearer middleware, protected-resource metadata).

- Authorization server at the base URL: dynamic client registration, `/authorize` that
  consents at once (no login page) and redirects to the client's `redirect_uri` with `code`
  and `state`, the code exchange with PKCE (the SDK checks the verifier) and the `resource`
  indicator, refresh (rotating refresh tokens), revocation. The person is the one named in
  the authorization URL's `login_hint` query parameter (a test appends `&login_hint=bob`),
  else the fixed user `ada`. Access tokens live `access_ttl` seconds.
- MCP server at `<base>/mcp` (streamable HTTP): `initialize`, listings and other requests
  are open; a `tools/call` needs a token for this resource with scope `tools` (else 401 with
  `WWW-Authenticate: Bearer ..., resource_metadata=...`), and `admin_report` also `admin` (else
  403 `error="insufficient_scope", scope="tools admin"`). `whoami` answers the token's subject;
  `greet` first asks the person's name (an `InputRequiredResult` round: modern protocol).
  `calls` counts each tool's runs per subject. `my_notes` is listed only to a signed-in
  person (a listing without a token leaves it out); with `private_listing`, a `tools/list`
  without a token is refused too (401, as a call).

Run it alone (for a browser test), from the repository root: `python -m tests.servers.signin_server --port 8123` prints
`ready http://127.0.0.1:8123/mcp` once it serves. In tests: `with running() as server: ...`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, RequireAuthMiddleware
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from pydantic import AnyHttpUrl
from starlette.routing import Route

from tests.servers.oauth import AuthorizationServer, login_hint

TOOLS, ADMIN = "tools", "admin"
ADMIN_TOOLS = frozenset({"admin_report"})
SIGNED_IN_TOOLS = frozenset({"my_notes"})
"""Listed only to a signed-in person."""


class PerPersonServer(MCPServer):
    """Lists `SIGNED_IN_TOOLS` only to a request that carries a token."""

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        return tools if get_access_token() is not None else [t for t in tools if t.name not in SIGNED_IN_TOOLS]


class Gate:
    """In front of `/mcp`: a `tools/call` needs a token (scope `tools`, and `admin` for
    `ADMIN_TOOLS`); everything else passes, signed in or not."""

    def __init__(self, app: Any, resource_metadata_url: str, *, private_listing: bool = False) -> None:
        self.app = app
        self.metadata = resource_metadata_url
        self.private_listing = private_listing

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        try:
            sent = json.loads(body)
        except ValueError:
            sent = None
        tool = sent["params"].get("name") if isinstance(sent, dict) and sent.get("method") == "tools/call" else None
        user = scope.get("user")
        listing = isinstance(sent, dict) and sent.get("method") == "tools/list"
        if (tool is not None or (listing and self.private_listing)) and not isinstance(user, AuthenticatedUser):
            return await self._refuse(send, 401, f'error="invalid_token", error_description="sign in", scope="{TOOLS}"')
        if tool in ADMIN_TOOLS and isinstance(user, AuthenticatedUser) and ADMIN not in user.scopes:
            return await self._refuse(send, 403, f'error="insufficient_scope", scope="{TOOLS} {ADMIN}"')
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return dict(await receive())

        await self.app(scope, replay, send)

    async def _refuse(self, send: Any, status: int, fields: str) -> None:
        challenge = f'Bearer {fields}, resource_metadata="{self.metadata}"'.encode()
        body = json.dumps({"error": "invalid_token" if status == 401 else "insufficient_scope"}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", challenge),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class LoginHint:
    """Reads `login_hint` of `/authorize` requests: the person the authorization server signs in."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        hint = None
        if scope["type"] == "http" and scope["path"] == "/authorize":
            from urllib.parse import parse_qs

            hint = (parse_qs(scope.get("query_string", b"").decode()).get("login_hint") or [None])[0]
        token = login_hint.set(hint)
        try:
            await self.app(scope, receive, send)
        finally:
            login_hint.reset(token)


@dataclass
class SignInServer:
    """Both servers, and what they saw."""

    base_url: str
    provider: AuthorizationServer
    calls: Counter[tuple[str, str]] = field(default_factory=Counter)
    """Runs of each (tool, subject)."""
    private_listing: bool = False
    """A `tools/list` without a token is refused (401)."""

    @property
    def url(self) -> str:
        return f"{self.base_url}/mcp"

    def app(self, *, stateless: bool = False) -> Any:
        server = PerPersonServer(
            "signin",
            auth_server_provider=self.provider,
            auth=AuthSettings(
                issuer_url=AnyHttpUrl(self.base_url),
                resource_server_url=AnyHttpUrl(self.url),
                validate_token_resource=True,
                client_registration_options=ClientRegistrationOptions(
                    enabled=True, valid_scopes=[TOOLS, ADMIN], default_scopes=[TOOLS]
                ),
                revocation_options=RevocationOptions(enabled=True),
                required_scopes=[TOOLS],
            ),
        )

        def subject() -> str:
            token = get_access_token()
            return "anonymous" if token is None or token.subject is None else token.subject

        @server.tool()
        def whoami() -> str:
            """The person this call acts for (the subject of its access token)."""
            self.calls["whoami", subject()] += 1
            return subject()

        @server.tool()
        def admin_report() -> str:
            """A report only an administrator may read (scope `admin`)."""
            self.calls["admin_report", subject()] += 1
            return f"report for {subject()}"

        @server.tool()
        def my_notes() -> str:
            """The signed-in person's own notes (listed only to them)."""
            self.calls["my_notes", subject()] += 1
            return f"notes of {subject()}"

        @server.tool()
        def greet(ctx: Context) -> str | InputRequiredResult:
            """Asks the person's name (an elicitation round), then greets them."""
            reply = (ctx.input_responses or {}).get("name")
            if not isinstance(reply, ElicitResult) or reply.action != "accept" or not reply.content:
                ask = ElicitRequestFormParams(
                    message="Your name?",
                    requested_schema={"type": "object", "properties": {"name": {"type": "string"}}},
                )
                return InputRequiredResult(input_requests={"name": ElicitRequest(params=ask)}, request_state="greet")
            self.calls["greet", subject()] += 1
            return f"hello {reply.content['name']}, signed in as {subject()}"

        app = server.streamable_http_app(stateless_http=stateless)
        for route in app.router.routes:
            if isinstance(route, Route) and route.path == "/mcp" and isinstance(route.app, RequireAuthMiddleware):
                guarded = route.app
                route.app = Gate(guarded.app, str(guarded.resource_metadata_url), private_listing=self.private_listing)
        return LoginHint(app)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running(
    *, access_ttl: int = 3600, stateless: bool = False, private_listing: bool = False
) -> Iterator[SignInServer]:
    """Both servers on a free loopback port while the block runs (uvicorn in a thread)."""
    from mcpbridge.testing import serve_http

    port = free_port()
    signin = SignInServer(
        f"http://127.0.0.1:{port}", AuthorizationServer(access_ttl=access_ttl), private_listing=private_listing
    )
    served = serve_http(signin.app(stateless=stateless), port)
    try:
        yield signin
    finally:
        served.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    parser.add_argument("--access-ttl", type=int, default=3600, help="access token lifetime, seconds")
    parser.add_argument("--stateless", action="store_true", help="serve streamable HTTP without sessions")
    parser.add_argument("--private-listing", action="store_true", help="refuse tools/list without a token")
    options = parser.parse_args(argv)
    import uvicorn

    port = options.port or free_port()
    signin = SignInServer(
        f"http://127.0.0.1:{port}",
        AuthorizationServer(access_ttl=options.access_ttl),
        private_listing=options.private_listing,
    )
    config = uvicorn.Config(signin.app(stateless=options.stateless), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)

    async def serve() -> None:
        import asyncio

        task = asyncio.create_task(server.serve())
        while not server.started:
            if task.done():
                await task
                return
            await asyncio.sleep(0.01)
        print(f"ready {signin.url}", flush=True)
        await task

    import asyncio

    asyncio.run(serve())
    sys.exit(0)


if __name__ == "__main__":
    main()
