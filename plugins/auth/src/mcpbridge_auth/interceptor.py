"""The interceptor: puts the person's bearer token on calls of the servers they sign in to,
and turns a server's OAuth challenge into a sign-in pause.

A tool body re-runs from the top on every resume, and LangGraph hands resume values to the
pauses of a call in order. So each pause of a call is remembered (its payload, no secret) under
the call, the pass (an outer plugin such as elicitation may send the call through here again
within one run) and its position: a re-run passes the pauses already answered first, with the
same payloads (the same `state`), before it sends anything, and the call is sent once, after them.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from mcpbridge import (
    AuthenticationError,
    Resumed,
    ToolCallError,
    ToolCallHandler,
    ToolCallRequest,
    ToolListHandler,
    ToolListRequest,
    ValueSource,
    thread_id,
)
from mcpbridge_auth.answers import ANSWER_SCHEMA, SIGN_IN
from mcpbridge_auth.discovery import Challenge, SignInError
from mcpbridge_auth.grants import Grant
from mcpbridge_auth.signins import SignIns

if TYPE_CHECKING:
    from mcp.types import Tool

logger = logging.getLogger("mcpbridge_auth")

PASSES_KEPT = 10_000
"""Calls whose passes a process remembers (the oldest are forgotten first)."""
NAMESPACE = ValueSource.parse("config.configurable.checkpoint_ns")
"""The run's task (a graph node's run), whose pauses a listing keeps."""
MAX_SIGN_INS = 5
"""Sign-ins one call may ask for before it fails (a server that refuses every new token)."""


class MissingIdentity(ToolCallError):
    """The run names no person (`[plugins.auth] identity`): the call was not sent."""


class SignInDeclined(ToolCallError):
    """The person did not sign in (the authorization server's callback carried an `error`):
    the call was not sent."""


class SignInFailed(ToolCallError):
    """A sign-in could not start (discovery or registration failed): the call was not sent."""


class SignInInterceptor:
    """Signs each person in to the servers of `[plugins.auth] servers`; no other server's calls
    carry a token of theirs."""

    def __init__(self, sign_ins: SignIns) -> None:
        self.sign_ins = sign_ins
        self.settings = sign_ins.settings
        self._passes: OrderedDict[Resumed, int] = OrderedDict()
        """How often each call of the current runs passed here (an outer plugin may send a call
        again, e.g. with a person's answers): at most `PASSES_KEPT`, the oldest forgotten first."""

    def _pass(self, request: ToolCallRequest) -> int:
        """Which pass of this call through here this is, in this run (0, then 1...): its pauses
        are remembered per pass, so that each pass replays only its own on a resume. The
        call's `resumed` mark is one per call and run, shared by every copy of the request."""
        mark = request.resumed
        seen = self._passes.pop(mark, -1) + 1
        self._passes[mark] = seen
        while len(self._passes) > PASSES_KEPT:
            self._passes.popitem(last=False)
        return seen

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        return server_name in self.sign_ins.urls

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        if request.server_name not in self.sign_ins.urls:
            return await handler(request)
        identity = self._identity(request)
        call = (thread_id(request), request.tool_call_id, request.server_name, request.name, self._pass(request))

        def send(bearer: str | None) -> Awaitable[Any]:
            headers = {**(request.headers or {}), "authorization": bearer} if bearer else request.headers
            return handler(request.override(headers=headers))

        # A call outside a thread, or without a tool call id, cannot pause (and resume) here.
        return await self._as_person(request, identity, call if None not in call[:2] else None, send)

    async def list_tools(self, request: ToolListRequest, handler: ToolListHandler) -> list[Tool]:
        """A listing for a run lists as the run's person, who signs in (a pause) when the server
        refuses to list without them; a listing outside a run, or for a run with no person,
        is the server's own."""
        identity = self._identity_of(request) if request.server_name in self.sign_ins.urls else None
        if identity is None:
            return await handler(request)
        listing = (thread_id(request), str(NAMESPACE.read(request) or ""), request.server_name, "tools/list", 0)

        def send(bearer: str | None) -> Awaitable[list[Tool]]:
            return handler(request.override(authorization=bearer))

        # The run's node lists again from the top when it resumes: its pauses are its task's.
        return cast("list[Tool]", await self._as_person(request, identity, listing if listing[0] else None, send))

    async def _as_person(
        self,
        request: ToolCallRequest | ToolListRequest,
        identity: str,
        call: tuple[Any, ...] | None,
        send: Callable[[str | None], Awaitable[Any]],
    ) -> Any:
        """`send(bearer)` with the person's token (None: they have none yet); a refusal with an
        OAuth challenge pauses the run (a `call`, the key of its pauses, or None when it cannot
        pause) for them to sign in, then sends again."""
        server = request.server_name
        note = None
        for attempt in range(MAX_SIGN_INS + 1):
            details = await self.sign_ins.asked(call, attempt) if call is not None else None
            if details is not None:  # this call paused here in an earlier run: take that answer again
                answer = self._ask(request, details)
                note = await self._answered(request, answer, identity)
                continue
            if attempt == MAX_SIGN_INS:
                break
            try:
                grant = await self.sign_ins.current(identity, server)
            except SignInError as exc:
                problem = f"acts for a person whose token cannot be refreshed now: {exc}"
                raise _about(SignInFailed, request, problem) from None
            try:
                return await send(f"Bearer {grant.token.access_token}" if grant is not None else None)
            except AuthenticationError as refused:
                challenge = Challenge.of(refused.status, refused.challenge)
                if challenge is None:
                    if grant is not None:
                        raise _without(refused, grant.token.access_token) from None
                    raise
            details = await self._begin(request, identity, challenge, grant, note)
            if details is None:
                continue  # the person signed in meanwhile (another call, thread or worker): send again
            if call is not None:
                await self.sign_ins.remember(call, attempt, details)
            answer = self._ask(request, details)
            note = await self._answered(request, answer, identity)
        raise _about(
            ToolCallError,
            request,
            f"was refused after {MAX_SIGN_INS} sign-ins in one call: the server refuses the tokens its "
            "authorization server issues (check its audience / resource and scopes)",
        )

    @staticmethod
    def _ask(request: ToolCallRequest | ToolListRequest, details: dict[str, Any]) -> dict[str, Any]:
        """The sign-in pause; a call's is told to the outer interceptors (events, tracing)."""
        if isinstance(request, ToolCallRequest):

            def notify() -> None:
                request.notify("auth.sign_in_requested", server_name=request.server_name, name=request.name)

            return SIGN_IN.ask(request, details, schema=ANSWER_SCHEMA, on_pause=notify)
        return SIGN_IN.ask(request, details, schema=ANSWER_SCHEMA)

    async def _answered(
        self, request: ToolCallRequest | ToolListRequest, answer: dict[str, Any], identity: str
    ) -> str | None:
        note = await self.sign_ins.answered(answer, identity, request.server_name)
        if "error" in answer:
            raise _about(
                SignInDeclined,
                request,
                f"was not called: the person did not sign in to server {request.server_name!r} "
                f"({answer['error']}, said the authorization server)",
            )
        return note

    async def _begin(
        self,
        request: ToolCallRequest | ToolListRequest,
        identity: str,
        challenge: Challenge,
        grant: Grant | None,
        note: str | None,
    ) -> dict[str, Any] | None:
        server = request.server_name
        try:
            if challenge.status == 401:
                if grant is not None:
                    await self.sign_ins.forget(identity, server, grant)
                # A token another worker keeps (or refreshed meanwhile), or kept before this
                # process discovered the server: send again with it instead of asking.
                authority = await self.sign_ins.authority(server, challenge, fresh=grant is None)
                stored = await self.sign_ins.grant(identity, authority)
                if stored is not None and (grant is None or stored.token.access_token != grant.token.access_token):
                    return None
            return await self.sign_ins.begin(identity, server, challenge, grant, note)
        except SignInError as exc:
            raise _about(SignInFailed, request, f"needs the person to sign in, but {exc}") from None

    def _identity_of(self, request: ToolCallRequest | ToolListRequest) -> str | None:
        """The run's person (`[plugins.auth] identity`), or None when it names none."""
        value = self.settings.identity.read(request)
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        return value if isinstance(value, str) and value else None

    def _identity(self, request: ToolCallRequest) -> str:
        if (identity := self._identity_of(request)) is not None:
            return identity
        source = self.settings.identity
        value = source.read(request)
        if value is None or value == "":
            why = (
                "the call has no LangGraph runtime (call the tool through an agent)"
                if request.runtime is None
                else f"the run has no value for `{source}`"
            )
        else:
            why = f"`{source}` is a {type(value).__name__}, not text"
        raise MissingIdentity.about(
            request,
            f"acts for a person, but {why}: [plugins.auth] identity reads `{source}`; {_how_to_pass(source)}, "
            "or set [plugins.auth] identity. The call was not sent",
        )


E = TypeVar("E", bound=ToolCallError)


def _about(kind: type[E], request: ToolCallRequest | ToolListRequest, problem: str) -> E:
    """`kind` naming the call's tool and server, or the listing's server."""
    if isinstance(request, ToolCallRequest):
        return kind.about(request, problem)
    return kind(f"The listing of server {request.server_name!r}'s tools {problem}", server_name=request.server_name)


def _how_to_pass(source: ValueSource) -> str:
    """How a run gives the person's id to `source`, in the words of where it reads it."""
    nested = _nested(source.path)
    if source.origin == "header":
        return (
            f"set the `{source.path[0]}` header on each call before this plugin sees it (in an interceptor "
            "placed outside it: a position below 58)"
        )
    if source.origin == "state":
        return f"put the person's id in the graph state, e.g. `{nested}` in the run's input (a key of its state schema)"
    return f"pass the person's id when invoking the agent: `{source.origin}={nested}`"


def _nested(path: tuple[str, ...]) -> str:
    """`{"a": {"b": ...}}` for `("a", "b")`."""
    value = "..."
    for step in reversed(path):
        value = f"{{{json.dumps(step)}: {value}}}"
    return value


def _without(error: AuthenticationError, token: str) -> AuthenticationError:
    """`error` as is, unless its text quotes the person's token (a server may echo what it refused)."""
    if token not in str(error):
        return error
    return AuthenticationError(
        error.server_name or "",
        str(error.cause).replace(token, "***") if error.cause else "refused the token",
        status=error.status,
        challenge=(error.challenge or "").replace(token, "***") or None,
        name=error.name,
    )
