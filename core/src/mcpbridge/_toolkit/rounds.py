"""Rounds of server questions (modern protocol): a tool call comes back as an
`InputRequiredResult` whose requests ask the client for a person's input
(`elicitation/create`), a model's answer (`sampling/createMessage`) or its roots
(`roots/list`); the call is sent again with `input_responses` and the round's
`request_state`.

Each plugin answers its own capability's part of a round with a `RoundAnswerer`. The
plugins that answer without a person (roots, a model) sit inside the one that pauses for a
person (elicitation): a round that also asks something else goes up the chain without the
requests answered here, and their answers are merged back in when the call comes down again
with that round's `request_state`.
"""

from __future__ import annotations

import contextvars
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeAlias, TypeVar

from mcp.types import InputRequiredResult

from mcpbridge._base.pipeline import ToolCallHandler, ToolCallRequest
from mcpbridge._base.protocol import Capability, capability_of
from mcpbridge._base.tool_errors import ToolCallError
from mcpbridge._toolkit.sources import thread_id

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
        self.capability = capability
        self.answer = answer
        self.max_requests = max_requests
        self.fix = fix
        self.kept = kept
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


class _Left:
    """The requests one call may still make on `server` of `budgets` (compared by identity:
    two calls never collide)."""

    __slots__ = ("budgets", "count", "server")

    def __init__(self, budgets: CallBudgets, server: str, count: int) -> None:
        self.budgets = budgets
        self.server = server
        self.count = count


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
        """`await call`, one call on `server`, with a budget of its own while it runs (on
        every call of a plugin that answers: no context manager's frames)."""
        left, token = self._open_one(server)
        try:
            return await call
        finally:
            self._close(left, token)

    @contextmanager
    def scope(self, server: str) -> Iterator[None]:
        """A budget of its own on `server` while the block runs (`during`, for work that is
        not one awaitable: e.g. a block in which the user calls a session directly)."""
        left, token = self._open_one(server)
        try:
            yield
        finally:
            self._close(left, token)

    def _open_one(self, server: str) -> tuple[_Left, contextvars.Token[tuple[_Left, ...]]]:
        left = _Left(self, server, self.per_call)
        with self._lock:
            self._open.setdefault(server, []).append(left)
        return left, _opened.set((*_opened.get(), left))

    def _close(self, left: _Left, token: contextvars.Token[tuple[_Left, ...]]) -> None:
        _opened.reset(token)
        with self._lock:
            left.count = 0  # a request that comes with the call after it ended is refused
            calls = self._open[left.server]
            calls.remove(left)
            if not calls:
                del self._open[left.server]

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
