"""One persistent MCP session per server (and per credential its calls carry): opened lazily,
shared by concurrent calls, reopened when the server dies or forgets it, closed without leftovers.

The mcp `Client` must be entered and exited in the same task, so each connection runs an
*owner* task that opens the client, lists the tools once, and waits until it is told to close
or its transport ends. Errors are told apart in `translate`, the calls on their way are in
`in_flight`, and a call sent as an MCP task goes through it too.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextlib import AsyncExitStack
from typing import Any, TypeVar, cast

import mcp.types as types
from mcp import Client, MCPError
from mcp.client.session import ClientSession
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpbridge._base.config import ServerConfig
from mcpbridge._base.errors import ConfigError, describe
from mcpbridge._base.pipeline import TaskHandle, ToolCallRequest
from mcpbridge._base.protocol import CALLBACKS, Capability, ModernOnly
from mcpbridge._base.tool_errors import ServerConnectionError, ToolCallError, check_headers
from mcpbridge._compat import answer_from_now_on
from mcpbridge._session.in_flight import InFlight, run_as_task, task_only, wanted_level
from mcpbridge._session.listing import Listing
from mcpbridge._session.sendable import check_sendable, sendable_answers
from mcpbridge._session.translate import Translator
from mcpbridge._session.transports import OpenedSession, call_headers, open_transport

logger = logging.getLogger(__name__)
T = TypeVar("T")
_Answer = types.CallToolResult | types.InputRequiredResult

_SHUTDOWN_GRACE = 5.0
CREDENTIAL_SESSIONS = 64
"""Sessions of per-call credentials kept open per server (idle ones beyond are closed)."""


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
        check_output: Callable[[types.Tool, types.CallToolResult], Awaitable[str | None]],
        spawn: Callable[[ServerConfig], Connection] | None = None,
    ) -> None:
        self.name = name
        self._check_output = check_output
        """Why a success breaks its tool's output schema (the bridge checks it, not the SDK: `listing`)."""
        self._unanswered = unanswered
        """The hint for a client capability that the server requires and no plugin answers."""
        self.config, self.timeout = config, timeout
        self.max_result_bytes, self.max_argument_bytes = max_result_bytes, max_argument_bytes
        self.tools_stale = False
        self.tools_unseen = False
        """A reopened session listed tools that `list_tools` has not handed out yet (the server
        may have restarted with other tools than those built from the last listing)."""
        self._in_flight = InFlight(name)
        self._translate = Translator(name, self._forget, unanswered)
        options = {key: self._wrapped(key, value) for key, value in client_options.items()}
        self._message_handler = options.pop("message_handler", None)
        self._modern_only = {key: value.value for key, value in options.items() if isinstance(value, ModernOnly)}
        self._client_options = {key: value for key, value in options.items() if not isinstance(value, ModernOnly)}
        self._open: OpenedSession | None = None
        """The transport of the open session (`OpenedSession.session`)."""
        self._listing = Listing()
        self._stop = asyncio.Event()
        self._owner: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._spawn = spawn
        """Makes the connection of one credential (`for_credential`); None on such a connection."""
        self._credentialed: OrderedDict[str, Connection] = OrderedDict()
        self.audience: str | None = None  # a digest of the credential it opens with (None: the server's own)
        self._closing: set[asyncio.Future[None]] = set()

    def _wrapped(self, key: str, value: Any) -> Any:
        """`value` itself, or for a callback that answers the server's own requests one whose
        answers pass the wire checks (`sendable_answers`) and are counted (`InFlight.counting`)."""
        if isinstance(value, ModernOnly):
            return ModernOnly(self._wrapped(key, value.value))
        if key in CALLBACKS:  # a callback whose return value the client sends to the server
            value = sendable_answers(value, self.name, self.max_argument_bytes)
        return self._in_flight.counting(key, value)

    @property
    def connected(self) -> bool:
        """True while a session is open and its transport has not ended."""
        return self._live() is not None

    def _live(self) -> OpenedSession | None:
        """The open session's transport, unless it has ended."""
        opened = self._open
        return opened if opened is not None and not opened.ended.is_set() else None

    async def session(self) -> ClientSession:
        """The live session, opening it first if needed."""
        return (await self._current()).session

    @property
    def calls_in_flight(self) -> tuple[ToolCallRequest, ...]:
        """The tool calls sent on this session (or one of its credentials') not answered yet."""
        return sum((c.calls_in_flight for c in self._credentialed.values()), self._in_flight.calls)

    def for_credential(self, headers: Mapping[str, str] | None) -> Connection | None:
        """The session of the call's own `Authorization`, when it carries one to a `url` server:
        servers bind a session to the credential that opened it (mcp's answer 404 to any other),
        and one person's credential never travels on another's session. The least recently used
        idle ones beyond `CREDENTIAL_SESSIONS` are closed."""
        credential = next((v for k, v in (headers or {}).items() if k.lower() == "authorization"), None)
        if credential is None or self._spawn is None or self.config.url is None:
            return None
        key = hashlib.sha256(credential.encode()).hexdigest()
        if (own := self._credentialed.get(key)) is None:
            config = self.config.model_copy(update={"headers": {**self.config.headers, "Authorization": credential}})
            own = self._credentialed[key] = self._spawn(config)
            own.audience = key
            idle = [k for k, c in self._credentialed.items() if not c.calls_in_flight and k != key]
            for old in idle[: max(0, len(self._credentialed) - CREDENTIAL_SESSIONS)]:
                closing = asyncio.ensure_future(self._credentialed.pop(old).aclose())
                self._closing.add(closing)
                closing.add_done_callback(self._closing.discard)
        self._credentialed.move_to_end(key)
        return own

    def holds(self, credentialed: Connection) -> bool:
        """Whether `credentialed` is one of this connection's open credential sessions."""
        return self._credentialed.get(credentialed.audience or "") is credentialed

    def send_for(
        self, request: ToolCallRequest, send: Callable[[ClientSession, float], Awaitable[T]]
    ) -> Coroutine[Any, Any, T]:
        """Send `send(session, limit)`, a request of the tool call `request` (`tools/call`, or
        the one that creates its task) with its headers and time limit; an error answer is an error result."""
        limit = request.timeout or self.timeout
        return self.request(None, lambda session: send(session, limit), request.headers, tool=request.name, limit=limit)

    async def list_tools(self, *, refresh: bool = False) -> list[types.Tool]:
        """The server's tools, listed once per connection; again when `refresh`, after a
        list-changed notification, or once the server's `ttlMs` for them ran out (`listing`)."""
        await self._current()  # opening a session lists its tools
        if refresh or self.tools_stale or self._listing.expired:
            self.tools_stale = False
            await self.request(None, lambda _session: self._listing.relist())
        self.tools_unseen = False
        return list(self._listing.tools)

    async def call_tool(self, request: ToolCallRequest) -> _Answer | TaskHandle:
        """Send `tools/call`; the end of every interceptor chain."""
        self._check_sendable(request)
        if (own := self.for_credential(request.headers)) is not None:
            return await own.call_tool(request)
        if self._live() is None:
            await self._current()
        if self.tools_unseen and request.tool is not None and request.tool not in self._listing.tools:
            # The session was opened again (the server restarted) and no longer offers the
            # definition the call was made for: it might now do something else.
            why = "the server no longer offers that definition since its session was opened again"
            raise ToolCallError.not_offered(self.name, request.name, why)
        if request.task is not None:  # its follow-up requests are the call's (`InFlight.following`)
            return self._in_flight.following(request, await run_as_task(self, request, request.task))
        if (refused := task_only(request, self.name, self._unanswered)) is not None:
            return refused
        with self._in_flight.tracking(request) as progress:  # what comes with this call is its own

            def call(session: ClientSession, limit: float) -> Awaitable[_Answer]:
                return session.call_tool(
                    request.name,
                    request.args,
                    read_timeout_seconds=limit,
                    input_responses=request.input_responses,
                    request_state=request.request_state,
                    meta=cast(types.RequestParamsMeta | None, request.meta),
                    progress_callback=progress,
                    allow_input_required=True,
                )

            result = await self.send_for(request, call)
        if isinstance(result, types.CallToolResult) and (problem := await self.output_problem(request, result)):
            return self._translate.malformed(request.name, problem)
        return self._translate.hinted(result)

    async def output_problem(self, request: ToolCallRequest, result: types.CallToolResult) -> str | None:
        """Why `result`, a success, breaks the output schema of the tool `request` calls (in
        the SDK's words: it is a malformed result), or None."""
        tool = request.tool or next((tool for tool in self._listing.tools if tool.name == request.name), None)
        return None if result.is_error or tool is None else await self._check_output(tool, result)

    def _check_sendable(self, request: ToolCallRequest) -> None:
        """Refuse, before the shared transport sees it, what would break it for every caller,
        whichever interceptor put it there."""
        check_sendable(request, self.max_argument_bytes)
        if request.headers:
            if self.config.url is None:
                raise ConfigError(
                    f"server {self.name!r} is a {self.config.transport} server and carries no HTTP headers, "
                    f"so {sorted(request.headers)} cannot be sent: configure headers only for `url` servers"
                )
            check_headers(self.name, request.headers)

    async def aclose(self) -> None:
        """Close the session (and its credentials' sessions) and wait for the transport (and any
        subprocess) to end."""
        credentialed, self._credentialed = list(self._credentialed.values()), OrderedDict()
        await asyncio.gather(self._close_own(), *(c.aclose() for c in credentialed), *self._closing)

    async def _close_own(self) -> None:
        owner, self._owner = self._owner, None
        current, self._open = self._open, None
        if current is not None:
            current.closing = True
        if owner is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(owner), timeout=10)
        except TimeoutError:
            await _end(owner)

    async def _current(self) -> OpenedSession:
        if (opened := self._live()) is None:
            async with self._lock:
                if (opened := self._live()) is None:
                    await self._close_own()
                    opened = self._open = await self._connect()
        return opened

    async def request(
        self,
        what: str | None,
        send: Callable[[ClientSession], Awaitable[T]],
        headers: Mapping[str, str] | None = None,
        *,
        tool: str | None = None,
        limit: float | None = None,
    ) -> T:
        """Send `send(session)` with `headers` as its HTTP headers: a request named `what` in errors
        (an error answer raises `ServerRequestError`), else one of the tool call to `tool` (`send_for`)
        or listing tools; what it raises is translated (`translate`). If the server says it forgot
        the session (it restarted), open a new one and send again, once: it never ran the first."""
        for again in (False, True):
            opened = self._live() or await self._current()  # an open session: no connect step to await
            token = call_headers.set(headers) if headers else None
            started = time.monotonic()
            try:
                return await send(opened.session)
            except (Exception, BaseExceptionGroup) as exc:
                if not (isinstance(exc, MCPError) and opened.session_gone):
                    failed = await self._translate.failed(exc, opened, started, tool=tool, what=what, limit=limit)
                    return cast(T, failed)
            finally:
                if token is not None:
                    call_headers.reset(token)
            if not again:
                logger.warning("mcpbridge: server %r forgot the session (restarted?); opening a new one", self.name)
                async with self._lock:
                    if self._open is opened:
                        await self._close_own()
        raise ServerConnectionError(
            self.name, "the server refused a freshly opened session as unknown", name=tool, sent=False
        )

    async def _forget(self, opened: OpenedSession, stalled: str | None = None) -> None:
        """Drop the broken session behind `opened`; `stalled` says why when its transport is still
        open but the server stopped taking what we send (it is then ended without a grace)."""
        if self._open is opened:
            why = f" ({stalled})" if stalled else ""
            logger.warning("mcpbridge: connection to server %r broke%s; the next call reconnects", self.name, why)
            opened.broke = True
            if stalled:
                opened.broke_because = stalled
                opened.abandon()
            await self._close_own()

    async def _connect(self) -> OpenedSession:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[OpenedSession] = loop.create_future()
        stop = self._stop = asyncio.Event()
        # A fresh context: requests the transport makes on its own (the GET stream, the
        # closing DELETE) must not carry the headers or trace of whichever call opened it.
        owner = self._owner = loop.create_task(
            self._own(ready, stop), name=f"mcpbridge:{self.name}", context=contextvars.Context()
        )
        limit = self.config.connect_timeout
        try:
            return await asyncio.wait_for(asyncio.shield(ready), limit)
        except BaseException as exc:  # failed, timed out or cancelled: no half-open session stays behind
            ready.cancel()
            self._owner = None
            await _end(owner)
            if isinstance(exc, TimeoutError):
                raise ServerConnectionError(
                    self.name, f"no answer within connect_timeout={limit:g} s", sent=False
                ) from None
            raise

    async def _own(self, ready: asyncio.Future[OpenedSession], stop: asyncio.Event) -> None:
        opened = OpenedSession()
        try:
            async with AsyncExitStack() as stack:
                client = await self._open_client(stack, opened)
                self.tools_stale = False
                self.tools_unseen = bool(self._listing.tools)  # reopened: tools were handed out
                await self._listing.relist()
                opened.session = client.session
                ready.set_result(opened)
                waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(opened.ended.wait())]
                watcher = [asyncio.ensure_future(self._watch_tools(client))] if _modern(client) else []
                try:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for task in (*waits, *watcher):
                        task.cancel()
                    await asyncio.gather(*waits, *watcher, return_exceptions=True)
                if opened.ended.is_set() and not stop.is_set():
                    logger.warning(
                        "mcpbridge: server %r ended (%s); the next call reconnects", self.name, opened.end_reason()
                    )
        except asyncio.CancelledError as exc:
            if not ready.done():
                ready.set_exception(self._translate.not_opened(exc, opened))
            raise
        except BaseException as exc:  # the owner task reports everything through `ready`
            opened.ended.set()
            if not ready.done():
                ready.set_exception(self._translate.not_opened(exc, opened))
            else:
                logger.debug("mcpbridge: closing server %r: %s", self.name, describe(exc))

    async def _open_client(self, stack: AsyncExitStack, opened: OpenedSession) -> Client:
        target = await open_transport(self.name, self.config, stack, opened, max_result_bytes=self.max_result_bytes)
        mode = self.config.client_mode
        # Modern-only options: given at once to a modern server; in `auto` mode added after the
        # handshake, when it found the server modern (a legacy `initialize` must not declare them).
        modern_only = self._modern_only if mode not in ("legacy", "auto") else {}
        # log_level: of the log messages modern servers send when asked (legacy ones send theirs).
        options = {"log_level": wanted_level(self.name), **self._client_options, **modern_only}
        name, version = self.config.client_info
        client = await stack.enter_async_context(
            Client(
                target,
                mode=mode,
                client_info=types.Implementation(name=name, version=version),
                message_handler=self._on_message,
                cache=self._listing.new_cache(),
                **options,
            )
        )
        self._listing.client = client
        if mode == "auto" and self._modern_only and _modern(client):
            answer_from_now_on(client.session, self._modern_only)
        return client

    async def _watch_tools(self, client: Client) -> None:
        """A modern server's tool changes, announced on `subscriptions/listen` (legacy: `_on_message`)."""
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _ in subscription:
                    self.tools_stale = True
        except Exception as exc:  # a server without subscriptions: tools are re-listed on request only
            logger.debug("mcpbridge: server %r does not announce tool changes: %s", self.name, describe(exc))

    async def _on_message(self, message: Any) -> None:
        """A server's notification (or a transport error). It runs in the context of the stream
        it came on, so a log message reaches the call that stream belongs to, if any
        (`InFlight.server_log`); a plugin's own `message_handler` hears every one, as the server's."""
        if isinstance(message, types.ToolListChangedNotification):
            self.tools_stale = True
        elif isinstance(message, types.LoggingMessageNotification):
            self._in_flight.server_log(message.params)
        elif isinstance(message, Exception):
            logger.debug("mcpbridge: server %r transport error: %s", self.name, type(message).__name__)
        if self._message_handler is not None:
            await self._message_handler(message)


def _modern(client: Client) -> bool:
    return client.session.protocol_version in MODERN_PROTOCOL_VERSIONS


async def _end(owner: asyncio.Task[None]) -> None:
    """Cancel the owner task and wait (a bounded time) for its transport to shut down."""
    owner.cancel()
    await asyncio.wait({owner}, timeout=_SHUTDOWN_GRACE)
