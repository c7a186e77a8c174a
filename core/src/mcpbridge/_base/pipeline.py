"""The interceptor pipeline: the request every tool call carries, and the onion of
interceptors it passes through on its way to the server.

An interceptor is any `async (request, handler) -> result`, a plain function or an object
with `__call__`. The first interceptor is the outermost. The chain is composed once per
tool, so a call pays one coroutine frame per interceptor and nothing else.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypedDict, Unpack

from langchain_core.messages import ToolMessage
from mcp.types import (
    CallToolResult,
    CancelTaskResult,
    GetTaskResult,
    InputRequiredResult,
    Task,
    TaskMetadata,
    TextContent,
    Tool,
)

from mcpbridge._base.errors import error_text, tracing
from mcpbridge._compat import write_frozen

if TYPE_CHECKING:
    from langgraph.types import Command

CallObserver: TypeAlias = Callable[[str, Mapping[str, Any]], None]
"""`(event, data) -> None`: told what inner interceptors did during one call."""

ToolCallResult: TypeAlias = "CallToolResult | InputRequiredResult | TaskHandle | ToolMessage | Command[Any]"
"""What a handler returns: the server's result, a request for user input (answered by the
plugin that answers elicitation), the server's task for a call sent with `request.task`, or
a message / command an interceptor produced on its own."""


@dataclasses.dataclass(frozen=True, slots=True)
class TaskHandle:
    """What the handler returns for a call sent with `request.task` (MCP tasks, protocol
    2025-11-25): the server's task as created (or, when resuming, as it is now) and its
    follow-up requests, sent on the call's session with the call's headers. They raise
    `ServerRequestError` when the server answers with an error."""

    task: Task
    get: Callable[[], Awaitable[GetTaskResult]]
    """`tasks/get`: the task's status now."""
    result: Callable[[], Awaitable[CallToolResult]]
    """`tasks/result`: the tool's result; the server holds the answer until the task ends."""
    cancel: Callable[[], Awaitable[CancelTaskResult]]
    """`tasks/cancel`."""


class RequestChanges(TypedDict, total=False):
    """What `ToolCallRequest.override()` may change."""

    name: str
    args: dict[str, Any]
    headers: Mapping[str, str] | None
    meta: dict[str, Any] | None
    timeout: float | None
    input_responses: dict[str, Any] | None
    request_state: str | None
    task: TaskMetadata | str | None
    observers: tuple[CallObserver, ...]


@dataclasses.dataclass(slots=True, eq=False)
class Resumed:
    """Whether a call resumed from a LangGraph interrupt in this run, and what the claiming
    layer claims its execution by (so that one of the workers resuming it sends it). Marked
    by `pause(request=...)` when it returns an answer; one per call, shared by every
    `override()` copy, so a retry of the same call keeps its owner."""

    thread_id: str = ""
    checkpoint_ns: str = ""
    answers: int = 0
    """How many of the task's interrupts have answers: a later round of questions is a new claim."""
    owner: str = ""
    """Who claims the call's execution; empty for a call that never paused (it claims nothing)."""
    won: bool = False
    sent: bool = False
    """Whether a request of this call may have reached the server under the claim."""


_READ_ONLY = frozenset({"server_name", "tool", "runtime", "display_name", "tool_call_id", "resumed"})


@dataclasses.dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """One tool call on its way to a server. Frozen: use `override()` to change it.

    `name` is the server's own (unprefixed) tool name, so policies keyed by
    `(server_name, name)` can never be bypassed by a display-name prefix.
    """

    name: str
    args: dict[str, Any]
    server_name: str
    headers: Mapping[str, str] | None = None
    runtime: Any = None
    tool: Tool | None = None
    meta: dict[str, Any] | None = None
    timeout: float | None = None
    input_responses: dict[str, Any] | None = None
    request_state: str | None = None
    display_name: str | None = None
    """The name the model saw (valid for every provider, `{server}_{name}` with
    `tool_name_prefix`: docs/configuration.md, "Tool names"); for messages to people, never
    for policies."""
    tool_call_id: str | None = None
    """The id of the model's tool call (also when the tool is invoked with a ToolCall outside
    an agent); None for a call with plain arguments."""
    artifact: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Entries for the ToolMessage artifact (e.g. `{"type": "myplugin", "hit": True}`).
    One list per call, shared by every `override()` copy, so outer interceptors see what
    inner ones added."""
    task: TaskMetadata | str | None = None
    """Send the call as an MCP task (protocol 2025-11-25): `TaskMetadata` asks the server to
    create one, a task id resumes one created before (e.g. by a worker that died); the handler
    then returns a `TaskHandle` (or the server's error result). None: an ordinary call."""
    observers: tuple[CallObserver, ...] = ()
    """Listeners for `notify()`; an outer interceptor adds one with
    `request.override(observers=(*request.observers, listener))`."""
    resumed: Resumed = dataclasses.field(default_factory=Resumed, repr=False, compare=False)
    """Whether this call resumed from an interrupt (`resumed.owner` is set): marked by
    `pause(request=...)`, read by the core's claiming layer. Read-only."""
    _sendable_args: dict[str, Any] | None = dataclasses.field(default=None, init=False, repr=False, compare=False)
    """The `args` object found sendable before the chain (`checked_before_chain`): the
    terminal handler checks `args` again only when an interceptor replaced them."""

    def notify(self, event: str, **data: Any) -> None:
        """Tell the outer interceptors (tracing, UI events) what happened in this call, e.g.
        `request.notify("retry.attempt", attempt=2)`. MCP progress arrives as `"progress"`."""
        for observer in self.observers:
            observer(event, data)

    def override(self, **changes: Unpack[RequestChanges]) -> ToolCallRequest:
        """A copy with `changes` applied (mypy checks their names and types). `server_name`,
        `tool`, `runtime`, `display_name` and `tool_call_id` identify the call, and `resumed`
        is the call's own: read-only."""
        if refused := _READ_ONLY.intersection(changes):
            raise AttributeError(
                f"ToolCallRequest.{sorted(refused)[0]} is read-only: it identifies the call's server, "
                "tool and run; change `name`, `args`, `headers`, `meta`, `timeout`, `input_responses`, "
                "`request_state` or `task` instead"
            )
        changed = dataclasses.replace(self, **changes)
        write_frozen(changed, "_sendable_args", self._sendable_args)
        return changed


@dataclasses.dataclass(frozen=True, slots=True)
class ToolListRequest:
    """One server's listing for a run (`bridge.list_tools(runtime=...)`), on its way through
    the list interceptors (`mcpbridge_list_interceptors`). Frozen: use `override()`."""

    server_name: str
    runtime: Any = None
    """The run's `ToolRuntime` (its `context`, `state` and `config`, as the run's tool calls
    have them); None for a listing outside any run."""
    authorization: str | None = None
    """The `Authorization` to list with, for a `url` server: the tools of the session of that
    credential, as the server shows them to its holder. None: the server's own session."""
    headers: None = None
    """A listing carries no headers of its own (a value source `header.<name>` reads none)."""
    tool_call_id: None = None
    """A listing belongs to no tool call (a pause for it says so with a null `tool_call_id`)."""

    def override(self, *, authorization: str | None) -> ToolListRequest:
        """A copy listing with `authorization`."""
        return dataclasses.replace(self, authorization=authorization)


ToolListHandler: TypeAlias = Callable[[ToolListRequest], Awaitable[list[Tool]]]
"""`async (request) -> tools`: the rest of the list chain, as a list interceptor sees it."""
ToolListInterceptor: TypeAlias = Callable[[ToolListRequest, ToolListHandler], Awaitable[list[Tool]]]
"""`async (request, handler) -> tools`: sees each listing for a run; may list with another
`authorization`, pause the run (a LangGraph `interrupt()`), or list again."""


def compose_listing(interceptors: Sequence[ToolListInterceptor], terminal: ToolListHandler) -> ToolListHandler:
    """Wrap `terminal` in the list `interceptors`, the first being the outermost."""
    handler = terminal
    for interceptor in reversed(interceptors):
        handler = _list_layer(interceptor, handler)
    return handler


def _list_layer(interceptor: ToolListInterceptor, inner: ToolListHandler) -> ToolListHandler:
    def handler(request: ToolListRequest) -> Awaitable[list[Tool]]:
        return interceptor(request, inner)

    return handler


def checked_before_chain(request: ToolCallRequest) -> ToolCallRequest:
    """`request`, marked as carrying arguments that passed the wire checks."""
    write_frozen(request, "_sendable_args", request.args)
    return request


def error_result(text: str) -> CallToolResult:
    """An error result written by the bridge or a plugin rather than a server: its text
    made safe like an error's (`mcpbridge._base.errors`)."""
    return CallToolResult(content=[TextContent(type="text", text=error_text(text))], is_error=True)


ToolCallHandler: TypeAlias = Callable[[ToolCallRequest], Coroutine[Any, Any, Any]]
"""`async (request) -> ToolCallResult`: the rest of the chain, as an interceptor sees it."""


class ToolCallInterceptor(Protocol):
    """`async (request, handler) -> result`. Call `await handler(request)` zero times
    (short-circuit), once, or several times (retry); change the request or the result.

    An interceptor with work for some tools only also has `applies_to(server_name, tool) ->
    bool`: the bridge leaves it out of the chain of each tool for which it returns False
    (asked once per tool definition, when the tool is listed), so those calls never pass it."""

    def __call__(self, request: ToolCallRequest, handler: ToolCallHandler, /) -> Awaitable[Any]: ...


def compose(interceptors: Sequence[ToolCallInterceptor], terminal: ToolCallHandler) -> ToolCallHandler:
    """Wrap `terminal` in `interceptors`, the first being the outermost. With
    `MCPBRIDGE_TRACE_HOOKS=1` each layer also prints when a call enters and leaves it."""
    traced = tracing()
    handler = terminal
    for depth, interceptor in reversed(list(enumerate(interceptors))):
        # An `async def` (or an object whose `__call__` is one) runs none of its code when
        # called: then it can be the chain's entry as it is, with no frame of its own.
        lazy = depth or inspect.iscoroutinefunction(interceptor)
        lazy = lazy or inspect.iscoroutinefunction(type(interceptor).__call__)
        handler = (_traced_layer if traced else _layer if lazy else _outermost)(interceptor, handler)
        handler.__qualname__ = f"{_name(interceptor)}[{'traced layer' if traced else 'layer'}]"
    return handler


def _name(interceptor: ToolCallInterceptor) -> str:
    return getattr(interceptor, "__qualname__", type(interceptor).__qualname__)


def _outermost(interceptor: ToolCallInterceptor, inner: ToolCallHandler) -> ToolCallHandler:
    """The chain's entry when its interceptor is not `async`, a coroutine function: calling the
    chain runs no interceptor code until it is awaited (on the loop that owns the sessions)."""

    async def handler(request: ToolCallRequest) -> Any:
        return await interceptor(request, inner)

    return handler


def _layer(interceptor: ToolCallInterceptor, inner: ToolCallHandler) -> ToolCallHandler:
    """An inner layer: a plain function that hands back the interceptor's own awaitable, so
    it adds no coroutine to the call's await chain."""

    def handler(request: ToolCallRequest) -> Any:
        return interceptor(request, inner)

    return handler


def _traced_layer(interceptor: ToolCallInterceptor, inner: ToolCallHandler) -> ToolCallHandler:
    name = _name(interceptor)

    async def handler(request: ToolCallRequest) -> Any:
        print(f"mcpbridge call: -> {name} ({request.server_name}/{request.name})", file=sys.stderr)
        try:
            result = await interceptor(request, inner)
        except BaseException as exc:
            print(f"mcpbridge call: <- {name} raised {type(exc).__name__}", file=sys.stderr)
            raise
        print(f"mcpbridge call: <- {name} returned {type(result).__name__}", file=sys.stderr)
        return result

    return handler
