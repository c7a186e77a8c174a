"""Server config → the transport an mcp `Client` connects through, watched for its end.

Each session opened is an `OpenedSession`: the session and the facts a connection needs to
tell a server's own answer from a broken transport. Its `ended` event is set the moment the transport's read
side ends (a stdio process exited, a stream hit EOF), so a server that dies while idle is
noticed before the next call, `session_gone` is set when a streamable HTTP server
answers 404 to our `Mcp-Session-Id` (it restarted and forgot the session), and `refused`
keeps the last HTTP error status the server answered (the mcp client reports it with neither
status nor text).

Both HTTP transports (streamable HTTP and SSE) get their client from the server's
`http_client` factory (default: a plain `httpx2.AsyncClient`) with the server's static
headers and `auth`; the bridge then adds its event hooks to that client: per-call headers,
the session watch and the bound on JSON response bodies.
"""

from __future__ import annotations

import asyncio
import contextvars
import ssl
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import httpx2
from anyio.abc import ObjectReceiveStream
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from mcpbridge._base.config import ServerConfig
from mcpbridge._base.errors import MAX_QUOTED_CHARS, outward_text
from mcpbridge._session.sendable import refusing_unsendable
from mcpbridge._session.stdio import StdioTransport

HTTP_TIMEOUT = 30.0
"""Seconds for an HTTP connect, write or pool wait (the mcp SDK's HTTP client default)."""
HTTP_READ_TIMEOUT = 300.0
"""Seconds a response stream may stay silent (the SDK's default: a server may hold one open)."""

MCP_SESSION_ID = "mcp-session-id"

call_headers: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "mcpbridge_call_headers", default=None
)
"""Headers of the tool call being sent. mcp sends each message in its sender's context, so
the HTTP hook below sees exactly the headers of the call that made the POST."""


@dataclass(frozen=True, slots=True)
class HTTPRefusal:
    """An HTTP error status a server answered: the status, its reason phrase, the server's
    `WWW-Authenticate` challenge and the start of its body (both cut to a quote's length and
    cleared of known secrets: `outward_text`)."""

    status: int
    reason: str
    challenge: str | None
    text: str

    def __str__(self) -> str:
        said = [f"WWW-Authenticate: {self.challenge}"] if self.challenge else []
        said += [f"the server said: {self.text}"] if self.text else []
        return f"HTTP {self.status} {self.reason}" + (f" ({'; '.join(said)})" if said else "")


class OpenedSession:
    """One opened session and its transport, as the connection sees them."""

    server = ""
    """The server's name (set by `open_transport`)."""
    config: ServerConfig | None = None
    """The server's config (set by `open_transport`): an error opening it names its keys."""

    def __init__(self) -> None:
        self.ended = asyncio.Event()
        self.session_gone = False
        self.refused: HTTPRefusal | None = None
        """The last HTTP error status the server answered on this transport."""
        self.closing = False
        """The bridge is closing this transport (`aclose()`)."""
        self.broke = False
        """...because it broke under a call: the calls sharing it say why it ended, not that
        the bridge is closing."""
        self.broke_because: str | None = None
        """Why the bridge gave up on it, when the transport itself did not end."""
        self.write_stalled: Callable[[], float] = lambda: 0.0
        """Seconds a write has waited for the server to take it (stdio: to read its stdin)."""
        self.abandon: Callable[[], None] = lambda: None
        """Close without the graceful wait: the server stopped reading what we send."""
        self._describe_end: Callable[[], str] = lambda: "the connection closed"

    def end_reason(self) -> str:
        """Why the transport ended, in words (with a stdio server's exit code and last stderr lines)."""
        return self.broke_because or self._describe_end()

    @property
    def session(self) -> ClientSession:
        """The session on it, set once it is open: from then on it refuses, in its sender
        alone, a message that cannot travel as UTF-8 JSON (`refusing_unsendable`), whatever the
        transport, and whoever sends (a tool, `bridge.request`, a raw `session.call_tool`)."""
        return self._session

    @session.setter
    def session(self, session: ClientSession) -> None:
        self._session = refusing_unsendable(session, self.server)


async def open_transport(
    name: str,
    config: ServerConfig,
    stack: AsyncExitStack,
    opened: OpenedSession,
    *,
    max_result_bytes: int | None = None,
) -> Any:
    """The `Client` target for `config`; stream transports are watched through `opened`."""
    opened.server, opened.config = name, config
    if config.transport == "stdio":
        assert config.command is not None
        stdio = StdioTransport(
            config.command, config.args, config.env, config.cwd, server_name=name, max_message_bytes=max_result_bytes
        )
        opened._describe_end = stdio.end_reason
        opened.write_stalled, opened.abandon = stdio.write_stalled, stdio.abandon
        return _watched(stdio, opened)
    url = config.url
    if url is None:
        return config.server
    factory = config.http_client or _default_client

    def hooked_client(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
    ) -> httpx2.AsyncClient:
        client = factory(headers=headers, timeout=timeout, auth=auth)
        hooks = client.event_hooks
        hooks["request"] = [*hooks.get("request", []), _call_headers_to(httpx2.URL(url))]
        hooks["response"] = [_bound(name, max_result_bytes), *hooks.get("response", []), _session_watch(opened)]
        client.event_hooks = hooks
        return client

    if config.transport == "sse":
        sse = sse_client(
            url,
            headers=dict(config.headers),
            timeout=HTTP_TIMEOUT,
            sse_read_timeout=HTTP_READ_TIMEOUT,
            httpx_client_factory=hooked_client,
            auth=config.auth,
        )
        opened._describe_end = lambda: (
            "the SSE stream closed (the server went away, or sent a message over the 1 MiB the mcp SDK's "
            "SSE client reads in one event)"
        )
        return _watched(sse, opened)
    timeout = httpx2.Timeout(HTTP_TIMEOUT, read=HTTP_READ_TIMEOUT)
    http = hooked_client(headers=dict(config.headers), timeout=timeout, auth=config.auth)
    await stack.enter_async_context(http)
    stream = streamable_http_client(url, http_client=http, max_sse_event_size=max_result_bytes)
    return _watched(stream, opened)


def _default_client(**options: Any) -> httpx2.AsyncClient:
    """A plain `httpx2.AsyncClient`, verifying TLS with the one default context of the process."""
    return httpx2.AsyncClient(verify=default_tls(), **options)


@cache
def default_tls() -> ssl.SSLContext:
    """The TLS context httpx2 builds by default (the system's CA store, or `SSL_CERT_FILE` /
    `SSL_CERT_DIR`), built once per process: building it loads the CA store on the event loop,
    which every connect and reconnect of every `url` server paid. One context
    serves any number of connections (those of the default client all offer HTTP/1.1 only)."""
    return httpx2.create_ssl_context()


def _call_headers_to(server: httpx2.URL) -> Callable[[httpx2.Request], Any]:
    """A request hook adding the call's headers to requests for the server's origin only, not
    to those an `auth` flow makes on the way (an OAuth authorization server's endpoints)."""

    origin = _origin(server)

    async def add(request: httpx2.Request) -> None:
        headers = call_headers.get()
        if headers and _origin(request.url) == origin:
            request.headers.update(headers)

    return add


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def _session_watch(opened: OpenedSession) -> Callable[[httpx2.Response], Any]:
    """A response hook: HTTP 404 to a request that carried `Mcp-Session-Id` means the
    server no longer knows the session (the streamable HTTP spec); so does a 400 whose body
    says the session is unknown, which some servers send instead. Any other error status is
    kept as `opened.refused`."""

    async def watch(response: httpx2.Response) -> None:
        status = response.status_code
        if status < 400:
            return
        text = await _start_of(response)
        if MCP_SESSION_ID in response.request.headers and (
            status == 404 or (status == 400 and "session" in text.lower())
        ):
            opened.session_gone = True
            return
        challenge = response.headers.get("www-authenticate")
        # outward already: the refusal is kept (`AuthenticationError.challenge`), and a challenge's
        # `resource_metadata` quotes the request's URL, a key in its path included
        opened.refused = HTTPRefusal(
            status, response.reason_phrase, challenge and outward_text(challenge), outward_text(text)
        )

    return watch


async def _start_of(response: httpx2.Response) -> str:
    """The start of an error response's body, as text. It is read whole, as the mcp client
    (a JSON-RPC error) or an `auth` flow (a 401) read it next; `_bound` bounds it."""
    try:
        body = await response.aread()
    except httpx2.StreamError:
        return ""
    return body[:MAX_QUOTED_CHARS].decode("utf-8", "replace").strip()


class ResultTooLarge(httpx2.StreamError):
    """A JSON response body over `max_result_bytes`: the SDK answers that request with an
    error naming this message, and stops reading (memory stays bounded)."""


def _bound(server: str, limit: int | None) -> Callable[[httpx2.Response], Any]:
    """A response hook bounding each JSON or error response body (before anything reads it);
    SSE events are bounded by the SDK (streamable HTTP: `max_sse_event_size`; SSE: 1 MiB)."""

    async def bound(response: httpx2.Response) -> None:
        json = response.headers.get("content-type", "").startswith("application/json")
        if limit is not None and (json or response.status_code >= 400):
            response.stream = _BoundedStream(response.stream, server, limit)

    return bound


class _BoundedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, server: str, limit: int) -> None:
        self._inner, self._server, self._limit = inner, server, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise ResultTooLarge(
                    f"the result is over max_result_bytes={self._limit} for server {self._server!r}; "
                    "raise the limit in the server's config if it is expected"
                )
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def _watched(transport: Any, opened: OpenedSession) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read_stream, write_stream):
        yield _WatchedReadStream(read_stream, opened.ended), write_stream


class _WatchedReadStream(ObjectReceiveStream[Any]):
    """A read stream that sets `ended` when the transport's read side ends; everything
    else, including the sender's context (`last_context`), passes through."""

    def __init__(self, inner: Any, ended: asyncio.Event) -> None:
        self._inner, self._ended = inner, ended

    @property
    def last_context(self) -> contextvars.Context | None:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except BaseException:  # EOF, a closed stream, or the transport's tasks torn down
            self._ended.set()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()
