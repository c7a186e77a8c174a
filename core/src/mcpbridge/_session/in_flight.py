"""The tool calls on their way on one session, and what reaches them from the session as a
whole rather than from their own answer: the server's log messages (Python log records on
`mcpbridge.server.<name>`), its questions to the client (elicitation, sampling) and progress;
and the MCP tasks client (protocol 2025-11-25): the task-augmented `tools/call` and the
follow-ups (`tasks/get`, `tasks/result`, `tasks/cancel`) its `TaskHandle` sends.

A call stays registered until its answer, or its failure, comes back: when the transport
breaks, the SDK fails every request still waiting, so the registry empties with it.

A notification belongs to a call only when the protocol ties it to that call, never because
the call happened to be in flight (several users share one session): mcp delivers a server's
message in the contextvars context of the stream it came on, so `sending` marks the call's
context. On streamable HTTP a request's response stream runs in the context that sent the
request (legacy and modern); in-process the server answers in it. stdio, SSE and HTTP's
standalone GET stream deliver in the session's own context, which names no call: what comes
there is the server's, not a call's, unless it names the MCP task a call is following
(`_meta` related-task, protocol 2025-11-25).
"""

from __future__ import annotations

import contextvars
import dataclasses
import json
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar, cast, get_args

import mcp.types as types
from mcp.client.session import ClientSession
from mcp.shared.dispatcher import ProgressFnT
from mcp.types import LoggingLevel, LoggingMessageNotificationParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from mcpbridge._base.pipeline import TaskHandle, ToolCallRequest, error_result
from mcpbridge._base.protocol import CALLBACKS, Capability
from mcpbridge._compat import send_raw_request

logger = logging.getLogger(__name__)

sending: contextvars.ContextVar[object | None] = contextvars.ContextVar("mcpbridge_call_sending", default=None)
"""The key of the tool call whose request is sent (and answered) in this context."""

RELATED_TASK = "io.modelcontextprotocol/related-task"
"""The `_meta` key by which a message names the task it is about (protocol 2025-11-25)."""

R = TypeVar("R")
T = TypeVar("T")

ASKING = {option: kind for option, kind in CALLBACKS.items() if kind != "roots"}
"""Client callbacks through which a server asks for an answer from a person or a model."""


class InFlight:
    """The tool calls sent on one server's session that have not been answered yet, with the
    context of those that have observers (events reach observers in their call's context)."""

    def __init__(self, server: str) -> None:
        self.server = server
        self._calls: dict[object, tuple[ToolCallRequest, contextvars.Context | None]] = {}
        self._tasks: dict[str, object] = {}
        """The MCP tasks whose requests are on their way, by task id: the key of their call."""
        self.asked: Counter[str] = Counter()
        """Requests the server made of the client that may involve a person or a model, by
        kind, that came with no call in flight here (stdio, SSE: they name none)."""
        self._asked: dict[object, Counter[str]] = {}
        """Those that came with an observed call in flight (`sending`), by the call's key."""

    @property
    def calls(self) -> tuple[ToolCallRequest, ...]:
        return tuple(request for request, _ in self._calls.values())

    def counting(self, option: str, value: Any) -> Any:
        """`value` itself, or for a callback through which the server asks (`ASKING`) a
        wrapper that counts its questions, so calls can tell that the server asked: the call
        a question came with (`sending`), or every call when it came with none here."""
        kind = ASKING.get(option)
        if kind is None:
            return value

        async def counted(*args: Any, **kwargs: Any) -> Any:
            came_with = sending.get()
            if came_with is None or came_with not in self._calls:
                self.asked[kind] += 1
            elif (own := self._asked.get(came_with)) is not None:  # else nobody observes that call
                own[kind] += 1
            return await value(*args, **kwargs)

        return counted

    @contextmanager
    def tracking(self, request: ToolCallRequest, task_id: str | None = None) -> Iterator[ProgressFnT | None]:
        """Register `request` (following its MCP task `task_id`, if given) while it runs and
        mark the context it is sent in as its own (`sending`); yields its progress callback
        (None when nobody observes it). If the server asked the client (a person, a model)
        meanwhile, with this call or with none (stdio, SSE: it may have been for any call in
        flight), its observers hear `server.asked`: the answer is not this call's alone to
        share. A question that came with another call is that call's alone."""
        key = object()
        observed = bool(request.observers)
        progress = progress_reporter(request, key) if observed else None
        self._calls[key] = (request, contextvars.copy_context() if observed else None)
        if task_id is not None:
            self._tasks[task_id] = key
        asked = self.asked.copy() if observed else None
        if observed:
            self._asked[key] = Counter()
        token = sending.set(key)
        try:
            yield progress
        finally:
            sending.reset(token)
            if asked is not None and (kinds := set(self._asked.pop(key)) | set(self.asked - asked)):
                request.notify("server.asked", kinds=sorted(kinds))
            del self._calls[key]
            if task_id is not None and self._tasks.get(task_id) is key:
                del self._tasks[task_id]

    def following(self, request: ToolCallRequest, answer: R) -> R:
        """`answer` to `request` sent as an MCP task; for a `TaskHandle`, one whose `tasks/get`
        and `tasks/result` are tracked as the call's while they run (`tracking`), so what
        comes with them, or names the task, reaches the call."""
        if not isinstance(answer, TaskHandle):
            return answer
        task_id = answer.task.task_id

        def tracked(send: Callable[[], Awaitable[T]]) -> Callable[[], Awaitable[T]]:
            async def run() -> T:
                with self.tracking(request, task_id):
                    return await send()

            return run

        return cast(R, dataclasses.replace(answer, get=tracked(answer.get), result=tracked(answer.result)))

    def _owner(self, params: LoggingMessageNotificationParams) -> object | None:
        """The key of the call a message came with (`sending`) or names (its task, on any
        transport); None when neither is a call in flight here, or when they disagree."""
        came_with = sending.get()
        came_with = came_with if came_with in self._calls else None
        related = (params.meta or {}).get(RELATED_TASK)
        task_id = related.get("taskId") if isinstance(related, dict) else None
        if task_id is None:
            return came_with
        named = self._tasks.get(task_id) if isinstance(task_id, str) else None
        return named if came_with is None or came_with is named else None

    def server_log(self, params: LoggingMessageNotificationParams) -> None:
        """A server's log message: to the `mcpbridge.server.<name>` logger, and as a `log` event
        to the observers of the call it came with (`sending`), when that call is in flight on
        this session. A message that came with no call is the server's: the logger's alone."""
        log_to_python(self.server, params)
        request, context = self._calls.get(self._owner(params), (None, None))
        if request is None or context is None:
            return
        event = {"level": params.level, "logger": params.logger, "data": params.data}
        for observer in request.observers:
            try:
                context.run(observer, "log", dict(event))
            except Exception:  # one observer's fault must not keep the message from the others
                logger.exception("mcpbridge: an observer of %s/%s failed on a log event", self.server, request.name)


def progress_reporter(request: ToolCallRequest, key: object | None = None) -> ProgressFnT:
    """The progress callback of `request` (the call registered as `key`, if it is). The SDK
    ties progress to its call by the token; it arrives on whatever task reads the transport
    (for stdio, not the caller's): report it in the context of the call it belongs to, so
    observers see that call's run. Progress that came on another call's response stream (a
    server answering one call with another's token) reaches no one."""
    context = contextvars.copy_context()

    async def report(progress: float, total: float | None, message: str | None) -> None:
        if sending.get() not in (None, key):
            logger.debug(
                "mcpbridge: dropped progress for %s/%s that came with another call", request.server_name, request.name
            )
            return
        context.run(request.notify, "progress", progress=progress, total=total, message=message)

    return report


# A server's log messages (`notifications/message`) as Python log records on
# `mcpbridge.server.<name>`.

MAX_LOG_CHARS = 4000
"""A server's log message is cut to this many characters before it reaches Python logging."""

LOG_LEVELS: dict[str, int] = {
    level: logging.getLevelNamesMapping().get(level.upper(), logging.CRITICAL) for level in get_args(LoggingLevel)
} | {"notice": logging.INFO + 5}
"""MCP (syslog) levels as Python logging levels: each as Python's of its name, `notice`
between `info` and `warning`, `alert` and `emergency` as `critical`."""


def server_logger(server_name: str) -> logging.Logger:
    """The logger a server's log messages go to: `mcpbridge.server.<server name>`."""
    return logging.getLogger(f"mcpbridge.server.{server_name}")


def wanted_level(server_name: str) -> LoggingLevel:
    """The MCP level to ask a modern server for: what its logger lets through, at most `info`
    (so the events stream hears `info` and above even when Python logging is quieter)."""
    effective = server_logger(server_name).getEffectiveLevel()
    return "debug" if effective <= logging.DEBUG else "info"


def log_text(data: Any) -> str:
    """A server's log data as one bounded line: JSON for anything but a string, control
    characters escaped (no forged log lines), cut at `MAX_LOG_CHARS`."""
    text = data if isinstance(data, str) else json.dumps(data, default=str, ensure_ascii=False)
    if len(text) > MAX_LOG_CHARS:
        text = f"{text[:MAX_LOG_CHARS]}… ({len(text) - MAX_LOG_CHARS} more characters)"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def log_to_python(server_name: str, params: LoggingMessageNotificationParams) -> None:
    """Log a server's message on `mcpbridge.server.<name>`; the text is an argument, never a
    format string, so a server cannot break (or forge) our logging."""
    level = LOG_LEVELS.get(params.level, logging.WARNING)
    target = server_logger(server_name)
    if target.isEnabledFor(level):
        source = f"[{log_text(params.logger)}] " if params.logger else ""
        extra = {"server_name": server_name, "mcp_level": params.level, "mcp_logger": params.logger}
        target.log(level, "%s%s", source, log_text(params.data), extra=extra)


M = TypeVar("M", bound=BaseModel)


class TaskSender(Protocol):
    """What the tasks client needs of a server's connection (`Connection` is one)."""

    name: str
    timeout: float

    async def session(self) -> ClientSession: ...

    def send_for(
        self, request: ToolCallRequest, send: Callable[[ClientSession, float], Awaitable[T]]
    ) -> Awaitable[T]: ...

    def request(
        self, what: str | None, send: Callable[[ClientSession], Awaitable[T]], headers: Mapping[str, str] | None = None
    ) -> Awaitable[T]: ...

    async def output_problem(self, request: ToolCallRequest, result: types.CallToolResult) -> str | None: ...


async def run_as_task(
    connection: TaskSender, request: ToolCallRequest, task: types.TaskMetadata | str
) -> types.CallToolResult | TaskHandle:
    """Create the task (`TaskMetadata`) or look up the one with that id; the handle sends
    its follow-up requests on the same session, with the call's headers and time limit."""
    if (await connection.session()).protocol_version in MODERN_PROTOCOL_VERSIONS:
        return error_result(
            f"MCP tool {request.name!r} on server {connection.name!r} cannot run as an MCP task: the session "
            "speaks protocol 2026-07-28, where tasks are an extension mcpbridge does not speak yet; "
            f'set mode = "legacy" for server {connection.name!r}'
        )
    limit = request.timeout or connection.timeout

    def send(what: str, message: types.Request[Any, Any], answer: type[M]) -> Awaitable[M]:
        def run(session: ClientSession) -> Awaitable[M]:
            return session.send_request(message, answer, request_read_timeout_seconds=limit)

        return connection.request(what, run, headers=request.headers)

    def get(task_id: str) -> Awaitable[types.GetTaskResult]:
        asked = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
        return send(f"tasks/get {task_id}", asked, types.GetTaskResult)

    def handle(created: types.Task) -> TaskHandle:
        task_id = created.task_id

        async def payload(session: ClientSession) -> types.CallToolResult:
            asked = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id))
            result = await session.send_request(asked, types.CallToolResult, request_read_timeout_seconds=limit)
            if (problem := await connection.output_problem(request, result)) is not None:
                raise RuntimeError(problem)  # a malformed result, as the SDK's own check raised it
            return result

        cancel = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
        return TaskHandle(
            task=created,
            get=lambda: get(task_id),
            result=lambda: connection.request(f"tasks/result {task_id}", payload, headers=request.headers),
            cancel=lambda: send(f"tasks/cancel {task_id}", cancel, types.CancelTaskResult),
        )

    if isinstance(task, str):
        return handle(await get(task))
    progress = progress_reporter(request) if request.observers else None

    async def create(session: ClientSession, limit: float) -> types.CallToolResult | types.CreateTaskResult:
        """A task-augmented `tools/call`. The SDK's `send_request` checks a `tools/call` answer
        against `CallToolResult` only (mcp 2.3 has no client for 2025-11-25 tasks), so this one
        request is sent raw with the same stamping (`send_raw_request`); its answer is parsed
        here, and the server's error result stays an error result."""
        meta = cast(types.RequestParamsMeta | None, request.meta)
        params = types.CallToolRequestParams(name=request.name, arguments=request.args, task=task, _meta=meta)
        data = types.CallToolRequest(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
        raw = await send_raw_request(session, data, {"timeout": limit, "on_progress": progress})
        return (types.CreateTaskResult if "task" in raw else types.CallToolResult).model_validate(raw, by_name=False)

    answer = await connection.send_for(request, create)
    return answer if isinstance(answer, types.CallToolResult) else handle(answer.task)


def task_only(
    request: ToolCallRequest, server: str, unanswered: Callable[[Capability | None], str]
) -> types.CallToolResult | None:
    """The error result of an ordinary call to a tool that runs only as an MCP task
    (`execution.taskSupport` "required"); None for any other call."""
    execution = request.tool.execution if request.tool is not None else None
    if execution is None or execution.task_support != "required":
        return None
    return error_result(
        f"MCP tool {request.name!r} on server {server!r} runs only as an MCP task "
        f"(execution.taskSupport 'required'): {unanswered('tasks')}"
    )
