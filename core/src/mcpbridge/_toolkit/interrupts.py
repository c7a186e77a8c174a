"""A tool call waiting for answers: paused for a person with a LangGraph `interrupt()`
(approval, elicitation), and rounds of server questions (modern protocol) that plugins answer.

`interrupt()` only pauses safely inside a graph run that has a checkpointer. Without one
LangGraph raises nothing: the run ends with `__interrupt__` and the paused call's state is
lost; outside a graph it fails with a bare `KeyError: '__pregel_scratchpad'`. `pause()`
checks the run first and refuses with `CannotPauseError` (a `ToolException`, so the tool
answers with an error ToolMessage and never runs the gated call).

A round is a tool call that comes back as an `InputRequiredResult` whose requests ask the
client for a person's input (`elicitation/create`), a model's answer
(`sampling/createMessage`) or its roots (`roots/list`); the call is sent again with
`input_responses` and the round's `request_state`. Each plugin answers its own capability's
part with a `RoundAnswerer`. The plugins that answer without a person (roots, a model) sit
inside the one that pauses for a person (elicitation): a round that also asks something else
goes up the chain without the requests answered here, and their answers are merged back in
when the call comes down again with that round's `request_state`.
"""

from __future__ import annotations

import contextvars
import os
import socket
import threading
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeAlias, TypeGuard, TypeVar, cast

from langgraph.config import get_config
from langgraph.errors import GraphInterrupt
from langgraph.types import Interrupt, interrupt
from mcp.types import InputRequiredResult
from pydantic import AfterValidator, WithJsonSchema

from mcpbridge._base.pipeline import ToolCallHandler, ToolCallRequest, ToolListRequest
from mcpbridge._base.protocol import Capability, capability_of
from mcpbridge._base.tool_errors import CannotPauseError, ToolCallError
from mcpbridge._compat import CONFIG_KEY_CHECKPOINTER, CONFIG_KEY_SCRATCHPAD, answers_given
from mcpbridge._toolkit.sources import thread_id

PAUSE_FIX = (
    "run the tool inside a LangGraph graph that has a checkpointer, e.g. "
    "`create_agent(model, tools, checkpointer=InMemorySaver())` (a SQLite or Postgres "
    "checkpointer to resume in another process), invoked with a `thread_id`"
)


def pause_problem() -> str | None:
    """Why the current run cannot pause with `interrupt()`, or None when it can."""
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:
        return "it is not running inside a LangGraph graph"
    if configurable.get(CONFIG_KEY_SCRATCHPAD) is None:
        return "it is not running inside a LangGraph graph (it was invoked directly)"
    if configurable.get(CONFIG_KEY_CHECKPOINTER) is None:
        return "the graph has no checkpointer, so a paused run could never be resumed"
    return None


def pause(
    value: Mapping[str, Any],
    *,
    purpose: str,
    request: ToolCallRequest | ToolListRequest,
    check: Callable[[Any], Any] | None = None,
    schema: Mapping[str, Any] | None = None,
    on_pause: Callable[[], None] | None = None,
) -> Any:
    """`interrupt(value)` after making sure the run can pause; returns the resume value.

    `check(answer)` validates (and may convert) the answer: a `ValueError` it raises reaches
    whoever resumed the run, and LangGraph saves nothing, so the interrupt can be answered
    again. `schema` is the JSON Schema clients see as the interrupt's `response_schema`.
    `on_pause` runs only when the call really pauses (not when a resume value is replayed).
    Once it returns, a call's `request` is marked as resumed (`request.resumed`): the claiming
    layer claims it before it is sent, so that only one worker resuming this interrupt sends
    it (a listing sends nothing to claim).
    """
    if (problem := pause_problem()) is not None:
        raise CannotPauseError(f"{purpose} needs to pause the agent for a person's answer, but {problem}: {PAUSE_FIX}")
    response_schema: Any = None
    if check is not None:
        response_schema = Annotated[Any, AfterValidator(check), WithJsonSchema(dict(schema or {}))]
    try:
        answer = interrupt(dict(value), response_schema=response_schema)
    except GraphInterrupt:
        if on_pause is not None:
            on_pause()
        raise
    if isinstance(request, ToolCallRequest):
        configurable = get_config()["configurable"]
        note_resumed(request, configurable, answers_given(configurable))
    return answer


_WORKER = f"{socket.gethostname()}:{os.getpid()}"


def note_resumed(request: ToolCallRequest, configurable: Mapping[str, Any], answers: int) -> None:
    """Mark `request`'s call as resumed from an interrupt (once per call: one owner)."""
    mark = request.resumed
    if not mark.owner:
        mark.thread_id = str(configurable.get("thread_id", ""))
        mark.checkpoint_ns = str(configurable.get("checkpoint_ns", ""))
        mark.answers = answers
        mark.owner = f"{_WORKER}:{uuid.uuid4().hex[:12]}"


A = TypeVar("A")
AnswerCheck: TypeAlias = Callable[[Mapping[str, Any], Any], A]
"""`check(payload, answer) -> answer`: raises `ValueError` naming what is wrong and what to send."""


@dataclass(frozen=True, slots=True)
class Question(Generic[A]):
    """One kind of pause for a person's answer, e.g. an approval: the payload `type` that
    marks its interrupts, and the check its answers pass — the same check when the call
    pauses (so a bad resume value is refused and can be sent again) and when a client builds
    a resume value with `resume()` (so mistakes surface there)."""

    kind: str
    """The payload's `type`, e.g. `"mcp_approval"`."""
    purpose: str
    """What the person is asked for, for messages, e.g. `"approval"`."""
    check: AnswerCheck[A]

    def ask(
        self,
        request: ToolCallRequest | ToolListRequest,
        details: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        on_pause: Callable[[], None] | None = None,
    ) -> A:
        """Pause the run with a payload of `type`, `server_name`, `name`, `display_name`,
        `tool_call_id` and `details`; return the checked answer once the run is resumed. For
        a listing (`ToolListRequest`) `name`, `display_name` and `tool_call_id` are None."""
        name = request.name if isinstance(request, ToolCallRequest) else None
        shown = request.display_name or name if isinstance(request, ToolCallRequest) else None
        payload = {
            "type": self.kind,
            "server_name": request.server_name,
            "name": name,
            "display_name": shown,
            "tool_call_id": request.tool_call_id,
            **details,
        }
        what = f"tool {name!r}" if name is not None else "the listing of the tools"
        answer: A = pause(
            payload,
            purpose=f"{self.purpose} for {what} on server {request.server_name!r}",
            request=request,
            check=lambda answer: self.check(payload, answer),
            schema=schema,
            on_pause=on_pause,
        )
        return answer

    def pending(self, interrupts: InterruptLike | Iterable[InterruptLike]) -> list[Interrupt]:
        """The interrupts in `interrupts` that ask this question: `result["__interrupt__"]`
        of a graph run, or the `{"id", "value"}` dicts the LangGraph SDK returns
        (`(await client.threads.get_state(thread_id))["interrupts"]`)."""
        if isinstance(interrupts, Interrupt) or _is_sdk_interrupt(interrupts):
            item = as_interrupt(interrupts)
            if not isinstance(item.value, Mapping):
                raise TypeError(f"expected an mcpbridge interrupt, got a {type(item.value).__name__} value")
            if (kind := item.value.get("type")) != self.kind:
                raise ValueError(f"interrupt {item.id} is a {kind!r} interrupt, not {self.kind!r}")
            return [item]
        items = [as_interrupt(item) for item in cast("Iterable[InterruptLike]", interrupts)]
        return [item for item in items if isinstance(item.value, Mapping) and item.value.get("type") == self.kind]

    def resume(
        self, interrupts: InterruptLike | Iterable[InterruptLike], answer: Any | Callable[[Mapping[str, Any]], Any]
    ) -> dict[str, A]:
        """`{interrupt.id: answer}` for every pending question of this kind, each answer
        checked now; `answer` is one answer for all or a function of each payload. Merge
        maps with `|` to answer several kinds at once in one `Command(resume=...)`."""
        pending = self.pending(interrupts)  # each one's value is a payload of this kind
        return {item.id: self.check(item.value, answer(item.value) if callable(answer) else answer) for item in pending}


InterruptLike: TypeAlias = "Interrupt | Mapping[str, Any]"
"""A LangGraph `Interrupt`, or its `{"id": ..., "value": ...}` form from the LangGraph SDK."""


def as_interrupt(item: InterruptLike) -> Interrupt:
    """`item` as an `Interrupt`; the SDK's dict form must have `id` and `value`."""
    if isinstance(item, Interrupt):
        return item
    if not _is_sdk_interrupt(item):
        raise TypeError(f"expected a LangGraph Interrupt or an {{'id', 'value'}} dict, got {type(item).__name__}")
    return Interrupt(value=item["value"], id=str(item["id"]))


def _is_sdk_interrupt(item: object) -> TypeGuard[Mapping[str, Any]]:
    return isinstance(item, Mapping) and "id" in item and "value" in item


Asked: TypeAlias = dict[str, Any]
"""Requests of one round by key (`ElicitRequest`, `CreateMessageRequest`, `ListRootsRequest`)."""
Answer: TypeAlias = Callable[[ToolCallRequest, Asked], Awaitable[Mapping[str, Any]]]
"""`(request, asked) -> {key: answer}`: answers every request in `asked`; it may raise (a
`ToolCallError` to fail the call, a LangGraph interrupt to pause it)."""
CallKey: TypeAlias = tuple[str, str, str, str | None]
T = TypeVar("T")


def split_round(result: Any, capability: Capability) -> tuple[Asked, Asked]:
    """The requests of `result` that `capability` answers, and the others (both empty when
    `result` is not an `InputRequiredResult`)."""
    if not isinstance(result, InputRequiredResult):
        return {}, {}
    mine: Asked = {}
    others: Asked = {}
    for key, asked in (result.input_requests or {}).items():
        (mine if capability_of(asked) == capability else others)[key] = asked
    return mine, others


def call_of(request: ToolCallRequest) -> CallKey:
    """Which call `request` belongs to across rounds and resumes: the run's thread too, since
    tool-call ids are the model's and some models number them alike in every thread (`call_0`)."""
    return (thread_id(request) or "", request.server_name, request.name, request.tool_call_id)


class RoundAnswerer:
    """The interceptor that answers `capability`'s requests in every round of a call with
    `answer` and sends the call again with the answers.

    A round that also asks something else goes up the chain without them, to the plugins
    outside that answer the rest; the answers wait here (the latest `kept` rounds) and are
    merged in when the call comes down again with that round's `request_state`. More than
    `max_requests` requests in one call fail it with a `ToolCallError`; `fix` says what to
    change (e.g. "raise `max_requests` in [plugins.x]")."""

    def __init__(
        self, capability: Capability, answer: Answer, *, max_requests: int = 10, fix: str = "", kept: int = 256
    ) -> None:
        self.capability, self.answer, self.fix = capability, answer, fix
        self.max_requests, self.kept = max_requests, kept
        self._waiting: OrderedDict[tuple[CallKey, str | None], tuple[dict[str, Any], int]] = OrderedDict()
        """(call, `request_state`) → the answers taken out of that round, and how many
        requests the call had made by then."""

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        current, answered = self._merged(request)
        result = await handler(current)
        while True:
            asked, others = split_round(result, self.capability)
            if not asked:
                return result
            answered += len(asked)
            if answered > self.max_requests:
                fix = f" ({self.fix})" if self.fix else ""
                problem = f"made more than {self.max_requests} {self.capability} requests in one call; stopped{fix}"
                raise ToolCallError.about(request, problem)
            answers = dict(await self.answer(request, asked))
            if others:  # the plugins outside answer the rest, then send the call again
                self._waiting[(call_of(request), result.request_state)] = (answers, answered)
                while len(self._waiting) > self.kept:
                    self._waiting.popitem(last=False)
                return result.model_copy(update={"input_requests": others})
            current = current.override(input_responses=answers, request_state=result.request_state)
            result = await handler(current)

    def _merged(self, request: ToolCallRequest) -> tuple[ToolCallRequest, int]:
        """`request` with the answers waiting for its round, if any, and how many requests
        the call has made so far."""
        waiting = self._waiting.pop((call_of(request), request.request_state), None) if self._waiting else None
        if waiting is None:  # the usual case: nothing waits (and the call is not even looked up)
            return request, 0
        answers, answered = waiting
        return request.override(input_responses={**answers, **(request.input_responses or {})}), answered


@dataclass(slots=True, eq=False)
class _Left:
    """The requests one call may still make on `server` of `budgets` (compared by identity:
    two calls never collide)."""

    budgets: CallBudgets
    server: str
    count: int


_opened: contextvars.ContextVar[tuple[_Left, ...]] = contextvars.ContextVar("mcpbridge_call_budgets", default=())
"""The budgets of the calls (and blocks) this context runs in, of every `CallBudgets`, innermost last."""


class CallBudgets:
    """How many requests each call in flight may still make of the client, per server, for
    the requests a legacy-protocol server makes mid-call (`ctx.elicit`, sampling): a plugin
    that answers them runs each call through `during(server, call)` and `charge(server)`s
    each request.

    A request is charged to the call it came with, found from the contextvars context it
    arrives in: in-process the server's code answering a call asks in that call's context, and
    over streamable HTTP a request on a call's response stream arrives in it. Over stdio and
    SSE (and HTTP's standalone stream) a request arrives in the session's own context and
    names no call: it is charged to the oldest call in flight on that server that has some
    left, which may be another user's. A request when its call has none left, or when no
    call of that server is in flight, is the plugin's to refuse."""

    def __init__(self, per_call: int) -> None:
        self.per_call = per_call
        self._open: dict[str, list[_Left]] = {}
        self._lock = threading.Lock()  # a sync bridge's sessions run on a loop thread of their own

    async def during(self, server: str, call: Awaitable[T]) -> T:
        """`await call`, one call on `server`, with a budget of its own while it runs."""
        with self.scope(server):
            return await call

    @contextmanager
    def scope(self, server: str) -> Iterator[None]:
        """A budget of its own on `server` while the block runs (`during`, for work that is
        not one awaitable: e.g. a block in which the user calls a session directly)."""
        left = _Left(self, server, self.per_call)
        with self._lock:
            self._open.setdefault(server, []).append(left)
        token = _opened.set((*_opened.get(), left))
        try:
            yield
        finally:
            _opened.reset(token)
            with self._lock:
                left.count = 0  # a request that comes with the call after it ended is refused
                calls = self._open[server]
                calls.remove(left)
                if not calls:
                    del self._open[server]

    def charge(self, server: str) -> bool:
        """Take one request from the budget here of the call this context belongs to; when it
        belongs to no call on `server` (the request names no call), from the oldest call on
        `server` with some left. False when there is none left to take."""
        tied = [left for left in _opened.get() if left.server == server]
        with self._lock:
            if tied:  # the call's own budget, never another's
                left = next((left for left in reversed(tied) if left.budgets is self), None)
            else:
                left = next((left for left in self._open.get(server, ()) if left.count > 0), None)
            if left is None or left.count <= 0:
                return False
            left.count -= 1
            return True
