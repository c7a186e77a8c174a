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
from typing import TYPE_CHECKING, Any

from mcpbridge import (
    AuthenticationError,
    Resumed,
    ToolCallError,
    ToolCallHandler,
    ToolCallRequest,
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
        server = request.server_name
        if server not in self.sign_ins.urls:
            return await handler(request)
        identity = self._identity(request)
        call = (thread_id(request), request.tool_call_id, server, request.name, self._pass(request))
        paused = call[0] is not None and call[1] is not None  # else the run cannot pause (and resume)
        note = None
        for attempt in range(MAX_SIGN_INS + 1):
            details = await self.sign_ins.asked(call, attempt) if paused else None
            if details is not None:  # this call paused here in an earlier run: take that answer again
                answer = SIGN_IN.ask(request, details, schema=ANSWER_SCHEMA, on_pause=lambda: self._paused(request))
                note = await self._answered(request, answer, identity)
                continue
            if attempt == MAX_SIGN_INS:
                break
            try:
                grant = await self.sign_ins.current(identity, server)
            except SignInError as exc:
                raise SignInFailed.about(
                    request, f"acts for a person whose token cannot be refreshed now: {exc}"
                ) from None
            sent = request
            if grant is not None:
                bearer = f"Bearer {grant.token.access_token}"
                sent = request.override(headers={**(request.headers or {}), "authorization": bearer})
            try:
                return await handler(sent)
            except AuthenticationError as refused:
                challenge = Challenge.of(refused.status, refused.challenge)
                if challenge is None:
                    if grant is not None:
                        raise _without(refused, grant.token.access_token) from None
                    raise
            details = await self._begin(request, identity, challenge, grant, note)
            if details is None:
                continue  # the person signed in meanwhile (another call, thread or worker): send again
            if paused:
                await self.sign_ins.remember(call, attempt, details)
            answer = SIGN_IN.ask(request, details, schema=ANSWER_SCHEMA, on_pause=lambda: self._paused(request))
            note = await self._answered(request, answer, identity)
        raise ToolCallError.about(
            request,
            f"was refused after {MAX_SIGN_INS} sign-ins in one call: the server refuses the tokens its "
            "authorization server issues (check its audience / resource and scopes)",
        )

    async def _answered(self, request: ToolCallRequest, answer: dict[str, Any], identity: str) -> str | None:
        note = await self.sign_ins.answered(answer, identity, request.server_name)
        if "error" in answer:
            raise SignInDeclined.about(
                request,
                f"was not called: the person did not sign in to server {request.server_name!r} "
                f"({answer['error']}, said the authorization server)",
            )
        return note

    async def _begin(
        self, request: ToolCallRequest, identity: str, challenge: Challenge, grant: Grant | None, note: str | None
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
            raise SignInFailed.about(request, f"needs the person to sign in, but {exc}") from None

    @staticmethod
    def _paused(request: ToolCallRequest) -> None:
        request.notify("auth.sign_in_requested", server_name=request.server_name, name=request.name)

    def _identity(self, request: ToolCallRequest) -> str:
        source = self.settings.identity
        value = source.read(request)
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if isinstance(value, str) and value:
            return value
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
