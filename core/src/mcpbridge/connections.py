"""One persistent MCP session per server: opened lazily, shared by concurrent calls,
owned by one long-lived task, reopened after the server dies, closed without leftovers.

The mcp `Client` must be entered and exited in the same task, so each connection runs an
*owner* task that opens the client, lists the tools once, and waits until it is told to
close. Calls from any task of the same event loop go through the shared session; the SDK
multiplexes them.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import Any, cast

import anyio
import httpx2
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import (
    CONNECTION_CLOSED,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    REQUEST_TIMEOUT,
    CallToolResult,
    InputRequiredResult,
    PaginatedRequestParams,
    RequestParamsMeta,
    TextContent,
    Tool,
    ToolListChangedNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbridge.config import ServerConfig
from mcpbridge.errors import ConfigError, ServerConnectionError, ToolTimeoutError, describe
from mcpbridge.pipeline import ToolCallRequest

logger = logging.getLogger(__name__)

_call_headers: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "mcpbridge_call_headers", default=None
)
"""Headers of the tool call being sent. mcp sends each message in its sender's context, so
the HTTP hook below sees exactly the headers of the call that made the POST."""

_CAPABILITY_HINT = (
    ". Plugins declare client capabilities: install and enable mcpbridge-elicitation "
    "to answer elicitation (see `mcpbridge plugins`)"
)

_MAX_TOOL_PAGES = 1000
_SHUTDOWN_GRACE = 5.0

_TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    httpx2.TransportError,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    OSError,
    BaseExceptionGroup,
)


async def _add_call_headers(request: httpx2.Request) -> None:
    headers = _call_headers.get()
    if headers:
        request.headers.update(headers)


class Connection:
    """The session to one server. `call_tool` is the pipeline's terminal handler."""

    def __init__(self, name: str, config: ServerConfig, *, timeout: float, client_options: Mapping[str, Any]) -> None:
        self.name = name
        self.config = config
        self.timeout = timeout
        self.tools_stale = False
        self._client_options = dict(client_options)
        self._message_handler = self._client_options.pop("message_handler", None)
        self._session: ClientSession | None = None
        self._tools: list[Tool] = []
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    @property
    def connected(self) -> bool:
        return self._session is not None

    async def session(self) -> ClientSession:
        """The live session, opening it first if needed."""
        session = self._session
        if session is not None:
            return session
        async with self._lock:
            if self._session is None:
                await self._open()
            assert self._session is not None
            return self._session

    async def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        """The server's tools, listed once per connection (again when `refresh` or after a
        list-changed notification)."""
        session = await self.session()
        if refresh or self.tools_stale:
            self.tools_stale = False
            self._tools = await self._guard(None, _list_all(session), session)
        return list(self._tools)

    async def call_tool(self, request: ToolCallRequest) -> CallToolResult | InputRequiredResult:
        """Send `tools/call`; the end of every interceptor chain."""
        if request.headers and self.config.transport != "http":
            raise ConfigError(
                f"server {self.name!r} is a {self.config.transport} server and carries no HTTP headers, "
                f"so {sorted(request.headers)} cannot be sent: configure headers only for `url` servers"
            )
        session = await self.session()
        limit = request.timeout or self.timeout
        token = _call_headers.set(request.headers) if request.headers else None
        try:
            result: CallToolResult | InputRequiredResult = await self._guard(
                request.name,
                session.call_tool(
                    request.name,
                    request.args,
                    read_timeout_seconds=limit,
                    input_responses=request.input_responses,
                    request_state=request.request_state,
                    meta=cast(RequestParamsMeta | None, request.meta),
                    progress_callback=_progress_reporter(request) if request.observers else None,
                    allow_input_required=True,
                ),
                session,
                limit=limit,
            )
            return result
        finally:
            if token is not None:
                _call_headers.reset(token)

    async def aclose(self) -> None:
        """Close the session and wait for the transport (and any subprocess) to end."""
        owner, self._owner = self._owner, None
        self._session = None
        if owner is None:
            return
        if self._stop is not None:
            self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(owner), timeout=10)
        except TimeoutError:
            await _end(owner)

    async def _guard(self, tool: str | None, call: Any, session: ClientSession, *, limit: float = 0) -> Any:
        """Await `call`, translating the SDK's failures into ours; a broken transport marks
        the session dead so the next call reconnects."""
        try:
            return await call
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT and tool is not None:
                raise ToolTimeoutError(self.name, tool, limit) from None
            if exc.code == CONNECTION_CLOSED:
                await self._forget(session)
                raise ServerConnectionError(self.name, "the connection closed", tool=tool) from exc
            if tool is None:
                raise ServerConnectionError(self.name, exc) from exc
            hint = _CAPABILITY_HINT if exc.code == MISSING_REQUIRED_CLIENT_CAPABILITY else ""
            return _error_result(
                f"MCP server {self.name!r} refused the call to {tool!r}: {exc.message} (code {exc.code}){hint}"
            )
        except _TRANSPORT_ERRORS as exc:
            await self._forget(session)
            raise ServerConnectionError(self.name, exc, tool=tool) from exc
        except RuntimeError as exc:
            if tool is None:
                raise
            return _error_result(f"MCP server {self.name!r} returned a malformed result for {tool!r}: {exc}")

    async def _forget(self, session: ClientSession) -> None:
        if self._session is session:
            logger.warning("mcpbridge: connection to server %r broke; the next call reconnects", self.name)
            await self.aclose()

    async def _open(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[ClientSession] = loop.create_future()
        self._stop = asyncio.Event()
        # A fresh context: requests the transport makes on its own (the GET stream, the
        # closing DELETE) must not carry the headers or trace of whichever call opened it.
        owner = self._owner = loop.create_task(
            self._own(ready, self._stop), name=f"mcpbridge:{self.name}", context=contextvars.Context()
        )
        try:
            self._session = await asyncio.wait_for(asyncio.shield(ready), self.config.connect_timeout)
        except BaseException as exc:  # failed, timed out or cancelled: no half-open session stays behind
            ready.cancel()
            self._owner = None
            await _end(owner)
            if isinstance(exc, TimeoutError):
                limit = self.config.connect_timeout
                raise ServerConnectionError(
                    self.name, f"no answer within connect_timeout={limit:g} s", sent=False
                ) from None
            raise

    async def _own(self, ready: asyncio.Future[ClientSession], stop: asyncio.Event) -> None:
        try:
            async with AsyncExitStack() as stack:
                client = await stack.enter_async_context(
                    Client(
                        await self._target(stack),
                        mode=self.config.client_mode,
                        message_handler=self._on_message,
                        **self._client_options,
                    )
                )
                self._tools = await _list_all(client.session)
                self.tools_stale = False
                ready.set_result(client.session)
                watcher = asyncio.create_task(self._watch_tools(client)) if _modern(client) else None
                try:
                    await stop.wait()
                finally:
                    if watcher is not None:
                        watcher.cancel()
                        await asyncio.gather(watcher, return_exceptions=True)
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_exception(ServerConnectionError(self.name, "connecting was cancelled", sent=False))
            raise
        except BaseException as exc:  # the owner task reports everything through `ready`
            if not ready.done():
                ready.set_exception(ServerConnectionError(self.name, exc, sent=False))
            else:
                logger.debug("mcpbridge: closing server %r: %s", self.name, describe(exc))

    async def _watch_tools(self, client: Client) -> None:
        """Modern servers announce tool changes on a `subscriptions/listen` stream (legacy
        ones send a notification, see `_on_message`); the next `list_tools()` re-lists."""
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _ in subscription:
                    self.tools_stale = True
        except Exception as exc:  # a server without subscriptions: tools are re-listed on request only
            logger.debug("mcpbridge: server %r does not announce tool changes: %s", self.name, describe(exc))

    async def _target(self, stack: AsyncExitStack) -> Any:
        config = self.config
        if config.transport == "stdio":
            assert config.command is not None
            return StdioServerParameters(command=config.command, args=config.args, env=config.env, cwd=config.cwd)
        if config.transport == "http":
            assert config.url is not None
            http = create_mcp_http_client(headers=dict(config.headers))
            http.event_hooks["request"].append(_add_call_headers)
            await stack.enter_async_context(http)
            return streamable_http_client(config.url, http_client=http)
        return config.server

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            self.tools_stale = True
        elif isinstance(message, Exception):
            logger.debug("mcpbridge: server %r transport error: %s", self.name, describe(message))
        if self._message_handler is not None:
            await self._message_handler(message)


def _modern(client: Client) -> bool:
    return client.session.protocol_version in MODERN_PROTOCOL_VERSIONS


async def _end(owner: asyncio.Task[None]) -> None:
    """Cancel the owner task and wait (a bounded time) for its transport to shut down."""
    owner.cancel()
    await asyncio.wait({owner}, timeout=_SHUTDOWN_GRACE)


async def _list_all(session: ClientSession) -> list[Tool]:
    """Every page of `tools/list`; a server whose pages never end is an error, not a hang."""
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(_MAX_TOOL_PAGES):
        page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools
    raise MCPError(code=-32603, message=f"tools/list returned more than {_MAX_TOOL_PAGES} pages; is its cursor stuck?")


def _progress_reporter(request: ToolCallRequest) -> Any:
    async def report(progress: float, total: float | None, message: str | None) -> None:
        request.notify("progress", progress=progress, total=total, message=message)

    return report


def _error_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
