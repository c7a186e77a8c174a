"""The connection dicts of langchain-mcp-adapters, and sessions of your own opened from them
as the adapters open them (`create_session`: a new, uninitialized mcp `ClientSession`).
`MultiServerMCPClient` turns the same dicts into mcpbridge servers (`config.server_config`).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict, TypeVar

import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from mcpbridge import note_env_value
from mcpbridge_adapters.callbacks import _MCPCallbacks
from mcpbridge_adapters.httpx_compat import Factory, adapt_auth, adapt_factory

__all__ = [
    "Connection",
    "EncodingErrorHandler",
    "SSEConnection",
    "StdioConnection",
    "StreamableHttpConnection",
    "WebsocketConnection",
    "create_session",
]

logger = logging.getLogger("mcpbridge_adapters.sessions")
_BRACED_VAR_RE = re.compile(r"\$\{([^}]+)\}")
T = TypeVar("T")
DEFAULT_HTTP_TIMEOUT = 5.0
DEFAULT_SSE_READ_TIMEOUT = 60 * 5.0
DEFAULT_STREAMABLE_HTTP_TIMEOUT = timedelta(seconds=30)
DEFAULT_STREAMABLE_HTTP_SSE_READ_TIMEOUT = timedelta(seconds=60 * 5)
WEBSOCKET_REFUSED = (
    "WebSocket servers cannot be reached (mcp 2.x has no WebSocket client); "
    "serve the server over streamable HTTP ('http') or SSE ('sse')"
)

EncodingErrorHandler = Literal["strict", "ignore", "replace"]


class StdioConnection(TypedDict):
    transport: Literal["stdio"]
    command: str
    args: list[str]
    env: NotRequired[dict[str, str] | None]
    cwd: NotRequired[str | Path | None]
    encoding: NotRequired[str]
    encoding_error_handler: NotRequired[EncodingErrorHandler]
    session_kwargs: NotRequired[dict[str, Any] | None]


class SSEConnection(TypedDict):
    transport: Literal["sse"]
    url: str
    headers: NotRequired[dict[str, Any] | None]
    timeout: NotRequired[float | timedelta]
    sse_read_timeout: NotRequired[float | timedelta]
    session_kwargs: NotRequired[dict[str, Any] | None]
    httpx_client_factory: NotRequired[Callable[..., Any] | None]
    auth: NotRequired[Any]


class StreamableHttpConnection(TypedDict):
    transport: Literal["streamable_http", "streamable-http", "http"]
    url: str
    headers: NotRequired[dict[str, Any] | None]
    timeout: NotRequired[float | timedelta]
    sse_read_timeout: NotRequired[float | timedelta]
    terminate_on_close: NotRequired[bool]
    session_kwargs: NotRequired[dict[str, Any] | None]
    httpx_client_factory: NotRequired[Callable[..., Any] | None]
    auth: NotRequired[Any]


class WebsocketConnection(TypedDict):
    transport: Literal["websocket"]
    url: str
    session_kwargs: NotRequired[dict[str, Any] | None]


class InProcessConnection(TypedDict):
    """mcpbridge's own: an `MCPServer` object run in this process (tests, embedded servers)."""

    transport: Literal["in_process"]
    server: Any
    mode: NotRequired[Literal["auto", "legacy", "modern"]]


Connection = StdioConnection | SSEConnection | StreamableHttpConnection | WebsocketConnection | InProcessConnection


def expand_env(env: dict[str, str] | None) -> dict[str, str] | None:
    """A stdio `env` with `${VAR}` replaced from this process's environment, as the adapters
    do: an undefined variable stays literally, with a warning; bare `$VAR` is left alone. A
    value read is noted as mcpbridge's own `${NAME}` notes it (`note_env_value`): a secret
    that the client's bridge hides in every error, ToolMessage and log line."""
    if env is None:
        return None
    expanded = {key: _BRACED_VAR_RE.sub(_from_environment, value) for key, value in env.items()}
    for key, value in expanded.items():
        if _BRACED_VAR_RE.search(value):
            logger.warning("env[%r] contains unexpanded variable reference: %r", key, value)
    return expanded


def _from_environment(match: re.Match[str]) -> str:
    name = match.group(1)
    value = os.environ.get(name)
    return match.group(0) if value is None else note_env_value(name, value)


def seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def _default_client(
    headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
) -> httpx2.AsyncClient:
    """The mcp SDK's default HTTP client: redirects followed."""
    return httpx2.AsyncClient(
        headers=headers, timeout=timeout or httpx2.Timeout(30.0), auth=auth, follow_redirects=True
    )


def http_factory(factory: Factory | None, where: str, auth: Any) -> Factory:
    return adapt_factory(factory, where, auth) if factory is not None else _default_client


@asynccontextmanager
async def _create_stdio_session(
    *,
    command: str,
    args: list[str],
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
    encoding: str = "utf-8",
    encoding_error_handler: EncodingErrorHandler = "strict",
    session_kwargs: dict[str, Any] | None = None,
) -> AsyncIterator[ClientSession]:
    """A session with a new stdio server process (not initialized)."""
    params = StdioServerParameters(
        command=command,
        args=args,
        env=expand_env(env),
        cwd=cwd,
        encoding=encoding,
        encoding_error_handler=encoding_error_handler,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write, **(session_kwargs or {})) as session:
        yield session


@asynccontextmanager
async def _create_sse_session(
    *,
    url: str,
    headers: dict[str, Any] | None = None,
    timeout: float | timedelta = DEFAULT_HTTP_TIMEOUT,  # noqa: ASYNC109 - the adapters' keyword
    sse_read_timeout: float | timedelta = DEFAULT_SSE_READ_TIMEOUT,
    session_kwargs: dict[str, Any] | None = None,
    httpx_client_factory: Factory | None = None,
    auth: Any = None,
) -> AsyncIterator[ClientSession]:
    """A session with an SSE server (not initialized)."""
    streams = sse_client(
        url,
        headers,
        seconds(timeout),
        seconds(sse_read_timeout),
        httpx_client_factory=http_factory(httpx_client_factory, url, auth),
        auth=adapt_auth(auth, url),
    )
    async with streams as (read, write), ClientSession(read, write, **(session_kwargs or {})) as session:
        yield session


@asynccontextmanager
async def _create_streamable_http_session(
    *,
    url: str,
    headers: dict[str, Any] | None = None,
    timeout: float | timedelta = DEFAULT_STREAMABLE_HTTP_TIMEOUT,  # noqa: ASYNC109 - the adapters' keyword
    sse_read_timeout: float | timedelta = DEFAULT_STREAMABLE_HTTP_SSE_READ_TIMEOUT,
    terminate_on_close: bool = True,
    session_kwargs: dict[str, Any] | None = None,
    httpx_client_factory: Factory | None = None,
    auth: Any = None,
) -> AsyncIterator[ClientSession]:
    """A session with a streamable HTTP server (not initialized)."""
    client = http_factory(httpx_client_factory, url, auth)(
        headers=headers,
        timeout=httpx2.Timeout(seconds(timeout), read=seconds(sse_read_timeout)),
        auth=adapt_auth(auth, url),
    )
    async with (
        client,
        streamable_http_client(url, http_client=client, terminate_on_close=terminate_on_close) as (read, write, *_),
        ClientSession(read, write, **(session_kwargs or {})) as session,
    ):
        yield session


CREATORS: dict[str, tuple[Callable[..., Any], tuple[str, ...]]] = {
    "stdio": (_create_stdio_session, ("command", "args")),
    "sse": (_create_sse_session, ("url",)),
    "streamable_http": (_create_streamable_http_session, ("url",)),
    "streamable-http": (_create_streamable_http_session, ("url",)),
    "http": (_create_streamable_http_session, ("url",)),
}


@asynccontextmanager
async def create_session(
    connection: Connection, *, mcp_callbacks: _MCPCallbacks | None = None
) -> AsyncIterator[ClientSession]:
    """A new mcp `ClientSession` to the server of `connection`, not initialized (call
    `await session.initialize()`), closed when the block ends; the legacy protocol."""
    if "transport" not in connection:
        raise ValueError(
            "Configuration error: Missing 'transport' key in server configuration. Each server must include "
            "'transport' with one of: 'stdio', 'sse', 'http'."
        )
    params = {key: value for key, value in connection.items() if key != "transport"}
    transport = connection["transport"]
    if transport == "websocket":
        raise ValueError(WEBSOCKET_REFUSED)
    if transport not in CREATORS:
        raise ValueError(f"Unsupported transport: {transport}. Must be one of: 'stdio', 'sse', 'http'")
    creator, required = CREATORS[transport]
    for key in required:
        if key not in params:
            raise ValueError(f"'{key}' parameter is required for {transport} connection")
    if mcp_callbacks is not None:
        kwargs: dict[str, Any] = dict(params.get("session_kwargs") or {})  # type: ignore[call-overload]
        for name in ("logging_callback", "elicitation_callback"):
            if getattr(mcp_callbacks, name) is not None:
                kwargs[name] = getattr(mcp_callbacks, name)
        params["session_kwargs"] = kwargs
    async with creator(**params) as session:
        yield session


async def in_new_session(
    opening: AbstractAsyncContextManager[ClientSession], work: Callable[[ClientSession], Awaitable[T]]
) -> T | None:
    """`await work(session)` on the new session `opening` opens (`create_session(...)`), closed
    after it; its error raised outside the session's block, where the mcp SDK could swallow it
    as the connection closes. None when the session closed before `work` returned."""
    failure: Exception | None = None
    result: T | None = None
    async with opening as session:
        try:
            result = await work(session)
        except Exception as exc:
            failure = exc
    if failure is not None:
        raise failure
    return result
