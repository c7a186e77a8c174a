"""One persistent MCP session per server: opened lazily, shared by concurrent calls,
owned by one long-lived task, reopened when the server dies or forgets the session, closed
without leftovers.

The mcp `Client` must be entered and exited in the same task, so each connection runs an
*owner* task that opens the client, lists the tools once, and waits until it is told to
close or its transport ends. Calls from any task of the same event loop go through the
shared session; the SDK multiplexes them.

An error the server sends is that server's answer to that one call; only a transport
that really ended is a connection error, and only a wait that really expired is a timeout.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any, TypeVar, cast, get_args

import anyio
import httpx2
from mcp import Client, MCPError
from mcp.client.session import ClientSession
from mcp.types import (
    CONNECTION_CLOSED,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    REQUEST_TIMEOUT,
    CallToolResult,
    CreateTaskResult,
    InputRequiredResult,
    LoggingLevel,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    PaginatedRequestParams,
    RequestParamsMeta,
    TaskMetadata,
    TextContent,
    Tool,
    ToolListChangedNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from mcpbridge._base.config import ServerConfig
from mcpbridge._base.errors import (
    ConfigError,
    InvalidToolArguments,
    ServerConnectionError,
    ServerRequestError,
    ToolTimeoutError,
    describe,
    error_text,
)
from mcpbridge._base.httpfields import check_headers
from mcpbridge._base.pipeline import TaskHandle, ToolCallRequest
from mcpbridge._platform.declaration import Capability
from mcpbridge._session.server_logs import log_to_python, wanted_level
from mcpbridge._session.task_requests import create_task, task_getter, task_handle
from mcpbridge._session.transports import Link, call_headers, open_transport
from mcpbridge._session.wire import request_problems, sendable_answers

logger = logging.getLogger(__name__)
T = TypeVar("T")

_ASKING = {"elicitation_callback": "elicitation", "sampling_callback": "sampling"}
"""Client callbacks through which a server asks for an answer from a person or a model."""
_ANSWERING = frozenset({*_ASKING, "list_roots_callback"})
"""Client callbacks whose return value the client sends to the server."""
_MAX_TOOL_PAGES = 1000
_SHUTDOWN_GRACE = 5.0
WEDGED_AFTER = 1.0
"""Seconds a write may wait for the server to take it (stdio: read its stdin) before a
request's timeout drops the session as wedged: a server that reads nothing for that long
holds every request queued behind the write."""

_TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    httpx2.TransportError,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    OSError,
    BaseExceptionGroup,
)


@dataclass(frozen=True, slots=True)
class ModernOnly:
    """A client option (from `mcpbridge_client_options`) that only answers servers on the
    modern protocol, e.g. an elicitation callback that has no way to answer a legacy
    server's mid-call question. It is offered to modern servers only, so a legacy server is
    never told the client can do what it cannot: in `auto` mode, a server that turns out to
    be legacy is reconnected (once) without it."""

    value: Any


class _Expired(Exception):
    """The call's own time limit ran out (not a server's timeout error)."""


class _SessionGone(Exception):
    """The server answered that it no longer knows our session: it never ran the request."""


class _Open:
    """An opened session and the transport facts behind it."""

    def __init__(self, session: ClientSession, link: Link) -> None:
        self.session = session
        self.link = link


class Connection:
    """The session to one server. `call_tool` is the pipeline's terminal handler."""

    def __init__(
        self,
        name: str,
        config: ServerConfig,
        *,
        timeout: float,
        client_options: Mapping[str, Any],
        max_result_bytes: int | None = None,
        max_argument_bytes: int | None = None,
        unanswered: Callable[[Capability | None], str] = lambda capability: "see `mcpbridge plugins`",
    ) -> None:
        self.name = name
        self._unanswered = unanswered
        """The hint for a client capability that the server requires and no plugin answers."""
        self.config = config
        self.timeout = timeout
        self.max_result_bytes = max_result_bytes
        self.max_argument_bytes = max_argument_bytes
        self.tools_stale = False
        self._asked: Counter[str] = Counter()
        """Requests the server made of the client that may involve a person or a model."""
        options = {key: self._counted(key, self._checked(key, value)) for key, value in client_options.items()}
        self._message_handler = options.pop("message_handler", None)
        self._modern_only = {key: value.value for key, value in options.items() if isinstance(value, ModernOnly)}
        self._client_options = {key: value for key, value in options.items() if not isinstance(value, ModernOnly)}
        self._mode = config.client_mode
        """`auto` becomes `legacy` once a server is found to be legacy and a client option is modern-only."""
        self._open: _Open | None = None
        self._tools: list[Tool] = []
        self._stop: asyncio.Event | None = None
        self._owner: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._in_flight: dict[object, tuple[ToolCallRequest, contextvars.Context | None]] = {}
        """Tool calls on their way, with the context of those that have observers."""

    def _checked(self, key: str, value: Any) -> Any:
        """`value` itself, or for a callback that answers the server's own requests one whose
        answers pass the wire checks (`sendable_answers`)."""
        if key not in _ANSWERING:
            return value
        if isinstance(value, ModernOnly):
            return ModernOnly(self._checked(key, value.value))
        return sendable_answers(value, self.name, self.max_argument_bytes)

    def _counted(self, key: str, value: Any) -> Any:
        """`value` itself, or for a callback that answers the server's own requests (elicitation,
        sampling) a wrapper that counts them, so calls can tell that the server asked."""
        kind = _ASKING.get(key)
        if kind is None:
            return value
        if isinstance(value, ModernOnly):
            return ModernOnly(self._counted(key, value.value))

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self._asked[kind] += 1
            return await value(*args, **kwargs)

        return counted

    @property
    def connected(self) -> bool:
        """True while a session is open and its transport has not ended."""
        current = self._open
        return current is not None and not current.link.ended.is_set()

    async def session(self) -> ClientSession:
        """The live session, opening it first if needed."""
        return (await self._current()).session

    @property
    def calls_in_flight(self) -> tuple[ToolCallRequest, ...]:
        """The tool calls sent on this session that have not been answered yet."""
        return tuple(request for request, _ in self._in_flight.values())

    async def request(self, what: str, send: Callable[[ClientSession], Awaitable[T]]) -> T:
        """Send a request that is not a tool call (`what` names it in errors): an error answer
        raises `ServerRequestError`, an unreachable server `ServerConnectionError`; a session
        the server forgot is reopened and the request sent again, once."""

        async def run(current: _Open) -> T:
            return await self._translate(None, current, send(current.session), what=what)

        return await self._once_more_if_forgotten(None, run)

    async def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        """The server's tools, listed once per connection (again when `refresh` or after a
        list-changed notification)."""

        async def relist(current: _Open) -> list[Tool]:
            if refresh or self.tools_stale:
                self.tools_stale = False
                self._tools = await self._translate(None, current, _list_all(current.session))
            return list(self._tools)

        return await self._once_more_if_forgotten(None, relist)

    async def call_tool(self, request: ToolCallRequest) -> CallToolResult | InputRequiredResult | TaskHandle:
        """Send `tools/call`; the end of every interceptor chain."""
        self._check_sendable(request)
        if request.task is not None:
            return await self._task(request, request.task)
        if _task_only(request):
            return _error_result(
                f"MCP tool {request.name!r} on server {self.name!r} runs only as an MCP task "
                f"(execution.taskSupport 'required'): {self._unanswered('tasks')}"
            )
        limit = request.timeout or self.timeout
        progress = _progress_reporter(request) if request.observers else None

        async def send(current: _Open) -> CallToolResult | InputRequiredResult:
            call = current.session.call_tool(
                request.name,
                request.args,
                read_timeout_seconds=limit,
                input_responses=request.input_responses,
                request_state=request.request_state,
                meta=cast(RequestParamsMeta | None, request.meta),
                progress_callback=progress,
                allow_input_required=True,
            )
            asked = self._asked.copy() if request.observers else None
            try:
                result: CallToolResult | InputRequiredResult = await self._sent(request, current, call, limit)
                return result
            finally:
                if asked is not None and asked != self._asked:
                    # The server asked the client (a person, a model) while this call ran:
                    # this call, or another on the same session; the answer is not this
                    # call's alone to share.
                    request.notify("server.asked", kinds=sorted(self._asked - asked))

        key = object()
        self._in_flight[key] = (request, contextvars.copy_context() if request.observers else None)
        try:
            return await self._once_more_if_forgotten(request.name, send)
        finally:
            del self._in_flight[key]

    async def _task(self, request: ToolCallRequest, task: TaskMetadata | str) -> CallToolResult | TaskHandle:
        """Create the task (`TaskMetadata`) or look up the one with that id; the handle sends
        its follow-up requests on the same session, with the call's headers."""
        limit = request.timeout or self.timeout

        async def send(what: str, run: Callable[[ClientSession, float], Awaitable[Any]]) -> Any:
            return await _with_headers(request.headers, self.request(what, lambda session: run(session, limit)))

        if (await self._current()).session.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return _error_result(
                f"MCP tool {request.name!r} on server {self.name!r} cannot run as an MCP task: the session speaks "
                "protocol 2026-07-28, where tasks are an extension mcpbridge does not speak yet; "
                f'set mode = "legacy" for server {self.name!r}'
            )
        if isinstance(task, str):
            return task_handle(await send(f"tasks/get {task}", task_getter(task)), request.name, send)
        progress = _progress_reporter(request) if request.observers else None

        async def create(current: _Open) -> CallToolResult | CreateTaskResult:
            created = create_task(current.session, request, task, limit, progress)
            result: CallToolResult | CreateTaskResult = await self._sent(request, current, created, limit)
            return result

        answer = await self._once_more_if_forgotten(request.name, create)
        return answer if isinstance(answer, CallToolResult) else task_handle(answer.task, request.name, send)

    async def _sent(self, request: ToolCallRequest, current: _Open, call: Awaitable[T], limit: float) -> T:
        """Await `call`, a request of this tool call, with the call's headers and within `limit`."""
        try:
            return await _with_headers(
                request.headers, self._translate(request.name, current, call, deadline=time.monotonic() + limit)
            )
        except _Expired:
            error = ToolTimeoutError(self.name, request.name, limit)
            if current.link.broke_because:
                error.add_note(f"{current.link.broke_because}; the next call starts it again")
            raise error from None

    def _check_sendable(self, request: ToolCallRequest) -> None:
        """Refuse, before the shared transport sees it, what would break it for every caller,
        whichever interceptor put it there."""
        problem = request_problems(request, self.max_argument_bytes)
        if problem is not None:
            what, why = problem
            raise InvalidToolArguments(
                f"Invalid {what} for tool {request.display_name or request.name!r}: {why}",
                server_name=self.name,
                name=request.name,
            )
        if request.headers:
            if self.config.url is None:
                raise ConfigError(
                    f"server {self.name!r} is a {self.config.transport} server and carries no HTTP headers, "
                    f"so {sorted(request.headers)} cannot be sent: configure headers only for `url` servers"
                )
            check_headers(self.name, request.headers)

    async def aclose(self) -> None:
        """Close the session and wait for the transport (and any subprocess) to end."""
        owner, self._owner = self._owner, None
        current, self._open = self._open, None
        if current is not None:
            current.link.closing = True
        if owner is None:
            return
        if self._stop is not None:
            self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(owner), timeout=10)
        except TimeoutError:
            await _end(owner)

    async def _current(self) -> _Open:
        current = self._open
        if current is not None and not current.link.ended.is_set():
            return current
        async with self._lock:
            current = self._open
            if current is None or current.link.ended.is_set():
                await self.aclose()
                current = self._open = await self._connect()
            return current

    async def _once_more_if_forgotten(self, tool: str | None, send: Callable[[_Open], Awaitable[T]]) -> T:
        """Run `send` on the session; if the server says it forgot the session (it restarted),
        open a new one and send again, once: the server never ran the first request."""
        current = await self._current()
        try:
            return await send(current)
        except _SessionGone:
            logger.warning("mcpbridge: server %r forgot the session (restarted?); opening a new one", self.name)
            async with self._lock:
                if self._open is current:
                    await self.aclose()
        current = await self._current()
        try:
            return await send(current)
        except _SessionGone:
            raise ServerConnectionError(
                self.name, "the server refused a freshly opened session as unknown", name=tool, sent=False
            ) from None

    async def _translate(
        self,
        tool: str | None,
        current: _Open,
        call: Awaitable[T],
        *,
        deadline: float | None = None,
        what: str | None = None,
    ) -> T:
        """Await `call`, telling the server's own errors (an error result for that one call,
        a `ServerRequestError` for `what` that is not a tool call) from a broken transport
        (the session is dropped; the next call reconnects)."""
        try:
            return await call
        except MCPError as exc:
            link = current.link
            if link.session_gone:
                raise _SessionGone from None
            if exc.code == REQUEST_TIMEOUT and (stalled := link.write_stalled()) >= WEDGED_AFTER:
                # Whatever waits behind that write would time out too: drop the session.
                await self._forget(current, f"the server read none of its stdin for {stalled:.1f} s")
            if exc.code == REQUEST_TIMEOUT and deadline is not None and time.monotonic() >= deadline:
                raise _Expired from None  # our own wait ran out; a server's own -32001 comes sooner
            if exc.code == CONNECTION_CLOSED and (link.ended.is_set() or link.closing):
                closed_by_us = link.closing and not link.broke
                await self._forget(current)  # waits for the transport to end: the exit code is known after
                reason = "the bridge is closing" if closed_by_us else link.end_reason()
                raise ServerConnectionError(self.name, reason, name=tool) from exc
            if what is not None:
                raise ServerRequestError(self.name, what, f"{exc.message} (code {exc.code})", code=exc.code) from exc
            if tool is None:
                raise ServerConnectionError(self.name, exc) from exc
            missing = exc.code == MISSING_REQUIRED_CLIENT_CAPABILITY
            hint = f". {self._unanswered(_required_capability(exc.data))}" if missing else ""
            return cast(
                T,
                _error_result(
                    f"MCP server {self.name!r} answered the call to {tool!r} with an error: "
                    f"{exc.message} (code {exc.code}){hint}"
                ),
            )
        except ValidationError as exc:
            problem = _first_problem(exc)
            if what is not None:
                raise ServerRequestError(self.name, what, f"malformed result: {problem}") from None
            if tool is None:
                raise ServerConnectionError(self.name, f"malformed tools/list result: {problem}") from None
            return cast(T, self._malformed(tool, problem))
        except _TRANSPORT_ERRORS as exc:
            await self._forget(current)
            raise ServerConnectionError(self.name, exc, name=tool) from exc
        except RuntimeError as exc:  # the SDK's check of structured content against the output schema
            if what is not None:  # or an input-required result where none can be answered
                raise ServerRequestError(self.name, what, str(exc)) from None
            if tool is None:
                raise
            return cast(T, self._malformed(tool, str(exc)))

    def _malformed(self, tool: str, problem: str) -> CallToolResult:
        return _error_result(f"MCP server {self.name!r} returned a malformed result for {tool!r}: {problem}")

    async def _forget(self, current: _Open, stalled: str | None = None) -> None:
        """Drop a session that broke; `stalled` says why when its transport is still open
        but the server stopped taking what we send (it is then ended without a grace)."""
        if self._open is current:
            logger.warning(
                "mcpbridge: connection to server %r broke%s; the next call reconnects",
                self.name,
                f" ({stalled})" if stalled else "",
            )
            current.link.broke = True
            if stalled:
                current.link.broke_because = stalled
                current.link.abandon()
            await self.aclose()

    async def _connect(self) -> _Open:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[_Open] = loop.create_future()
        stop = self._stop = asyncio.Event()
        # A fresh context: requests the transport makes on its own (the GET stream, the
        # closing DELETE) must not carry the headers or trace of whichever call opened it.
        owner = self._owner = loop.create_task(
            self._own(ready, stop), name=f"mcpbridge:{self.name}", context=contextvars.Context()
        )
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.config.connect_timeout)
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

    async def _own(self, ready: asyncio.Future[_Open], stop: asyncio.Event) -> None:
        link = Link()
        try:
            async with AsyncExitStack() as stack:
                client = await self._open_client(stack, link)
                if self._mode == "auto" and self._modern_only and not _modern(client):
                    # Declared capabilities cannot be taken back: start over, honestly.
                    self._mode = "legacy"
                    await stack.aclose()
                    link = Link()
                    client = await self._open_client(stack, link)
                self._tools = await _list_all(client.session)
                self.tools_stale = False
                current = _Open(client.session, link)
                ready.set_result(current)
                watcher = asyncio.create_task(self._watch_tools(client)) if _modern(client) else None
                try:
                    await _first(stop.wait(), link.ended.wait())
                finally:
                    if watcher is not None:
                        watcher.cancel()
                        await asyncio.gather(watcher, return_exceptions=True)
                if link.ended.is_set() and not stop.is_set():
                    logger.warning(
                        "mcpbridge: server %r ended (%s); the next call reconnects", self.name, link.end_reason()
                    )
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_exception(ServerConnectionError(self.name, "connecting was cancelled", sent=False))
            raise
        except BaseException as exc:  # the owner task reports everything through `ready`
            link.ended.set()
            if not ready.done():
                reason = link.end_reason() if _is_transport_end(exc) else exc
                ready.set_exception(ServerConnectionError(self.name, reason, sent=False))
            else:
                logger.debug("mcpbridge: closing server %r: %s", self.name, describe(exc))

    async def _open_client(self, stack: AsyncExitStack, link: Link) -> Client:
        target = await open_transport(self.name, self.config, stack, link, max_result_bytes=self.max_result_bytes)
        options = self._client_options if self._mode == "legacy" else {**self._client_options, **self._modern_only}
        client: Client = await stack.enter_async_context(
            Client(
                target, mode=self._mode, message_handler=self._on_message, **{"log_level": self._log_level, **options}
            )
        )
        return client

    async def _watch_tools(self, client: Client) -> None:
        """Modern servers announce tool changes on a `subscriptions/listen` stream (legacy
        ones send a notification, see `_on_message`); the next `list_tools()` re-lists."""
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _ in subscription:
                    self.tools_stale = True
        except Exception as exc:  # a server without subscriptions: tools are re-listed on request only
            logger.debug("mcpbridge: server %r does not announce tool changes: %s", self.name, describe(exc))

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            self.tools_stale = True
        elif isinstance(message, LoggingMessageNotification):
            self._server_log(message.params)
        elif isinstance(message, Exception):
            logger.debug("mcpbridge: server %r transport error: %s", self.name, type(message).__name__)
        if self._message_handler is not None:
            await self._message_handler(message)

    @property
    def _log_level(self) -> LoggingLevel:
        """The level of log messages to opt in to on modern servers (legacy ones send theirs)."""
        return wanted_level(self.name)

    def _server_log(self, params: LoggingMessageNotificationParams) -> None:
        """A server's log message: to the `mcpbridge.server.<name>` logger, and as a `log` event
        to every call in flight on this session that has observers (the notification does not
        say which request it belongs to)."""
        log_to_python(self.name, params)
        event = {"level": params.level, "logger": params.logger, "data": params.data}
        for request, context in list(self._in_flight.values()):
            if context is None:
                continue
            for observer in request.observers:
                try:
                    context.run(observer, "log", dict(event))
                except Exception:  # one observer's fault must not keep the message from the others
                    logger.exception("mcpbridge: an observer of %s/%s failed on a log event", self.name, request.name)


def _modern(client: Client) -> bool:
    return client.session.protocol_version in MODERN_PROTOCOL_VERSIONS


def _is_transport_end(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_transport_end(inner) for inner in exc.exceptions)
    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED


async def _first(*waits: Awaitable[Any]) -> None:
    """Wait until the first of `waits` finishes; cancel the rest."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


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
    """Progress arrives on whatever task reads the transport (for stdio, not the caller's):
    report it in the context of the call it belongs to, so observers see that call's run."""
    context = contextvars.copy_context()

    async def report(progress: float, total: float | None, message: str | None) -> None:
        context.run(request.notify, "progress", progress=progress, total=total, message=message)

    return report


def _task_only(request: ToolCallRequest) -> bool:
    execution = request.tool.execution if request.tool is not None else None
    return execution is not None and execution.task_support == "required"


def _first_problem(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "it does not match the MCP schema"
    error = errors[0]
    where = ".".join(str(part) for part in error["loc"]) or "result"
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return f"{where}: {error['msg']}{more}"


def _error_result(text: str) -> CallToolResult:
    """An error result the bridge writes itself: its text made safe like an error's."""
    return CallToolResult(content=[TextContent(type="text", text=error_text(text))], is_error=True)


def _required_capability(data: Any) -> Capability | None:
    """The client capability a server's "missing required client capability" error names
    (`data.requiredCapabilities`), when it is one that plugins answer."""
    required = data.get("requiredCapabilities") if isinstance(data, Mapping) else None
    if isinstance(required, Mapping):
        for capability in get_args(Capability):
            if capability in required:
                return cast(Capability, capability)
    return None


async def _with_headers(headers: Mapping[str, str] | None, request: Awaitable[T]) -> T:
    """Await `request` with `headers` as the HTTP headers of what it sends (`call_headers`)."""
    token = call_headers.set(headers) if headers else None
    try:
        return await request
    finally:
        if token is not None:
            call_headers.reset(token)
