"""The interceptor: puts the person's bearer token on calls of the servers they sign in to,
and turns a server's OAuth challenge into a sign-in pause.

A tool body re-runs from the top on every resume, and LangGraph hands resume values to the
pauses of a call in order. So each pause of a call is remembered (its payload, no secret) under
the call and its position: a re-run passes the pauses already answered first, with the same
payloads (the same `state`), before it sends anything, and the call is sent once, after them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from mcpbridge import AuthenticationError, ToolCallError, ToolCallHandler, ToolCallRequest, thread_id
from mcpbridge_auth.answers import ANSWER_SCHEMA, SIGN_IN
from mcpbridge_auth.discovery import Challenge, SignInError
from mcpbridge_auth.signins import Grant, SignIns

if TYPE_CHECKING:
    from mcp.types import Tool

logger = logging.getLogger("mcpbridge_auth")

MAX_SIGN_INS = 5
"""Sign-ins one call may ask for before it fails (a server that refuses every new token)."""


class MissingIdentity(ToolCallError):
    """The run names no person (`[plugins.auth] identity`): the call was not sent."""


class SignInFailed(ToolCallError):
    """A sign-in could not start (discovery or registration failed): the call was not sent."""


class SignInInterceptor:
    """Signs each person in to the servers of `[plugins.auth] servers`; no other server's calls
    carry a token of theirs."""

    def __init__(self, sign_ins: SignIns) -> None:
        self.sign_ins = sign_ins
        self.settings = sign_ins.settings

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        return server_name in self.sign_ins.urls

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        server = request.server_name
        if server not in self.sign_ins.urls:
            return await handler(request)
        identity = self._identity(request)
        call = (thread_id(request), request.tool_call_id, server, request.name)
        note = None
        for attempt in range(MAX_SIGN_INS + 1):
            details = await self.sign_ins.asked(call, attempt)
            if details is not None:  # this call paused here in an earlier run: take that answer again
                answer = SIGN_IN.ask(request, details, schema=ANSWER_SCHEMA, on_pause=lambda: self._paused(request))
                note = await self.sign_ins.answered(answer, identity, server)
                continue
            if attempt == MAX_SIGN_INS:
                break
            grant = await self.sign_ins.current(identity, server)
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
                continue  # another call of this person signed in meanwhile: send again
            await self.sign_ins.remember(call, attempt, details)
            answer = SIGN_IN.ask(request, details, schema=ANSWER_SCHEMA, on_pause=lambda: self._paused(request))
            note = await self.sign_ins.answered(answer, identity, server)
        raise ToolCallError.about(
            request,
            f"was refused after {MAX_SIGN_INS} sign-ins in one call: the server refuses the tokens its "
            "authorization server issues (check its audience / resource and scopes)",
        )

    async def _begin(
        self, request: ToolCallRequest, identity: str, challenge: Challenge, grant: Grant | None, note: str | None
    ) -> dict[str, Any] | None:
        server = request.server_name
        try:
            if challenge.status == 401:
                if grant is not None:
                    await self.sign_ins.forget(identity, server, grant)
                else:  # a token kept by another worker, or before discovery in this process
                    authority = await self.sign_ins.authority(server, challenge, fresh=True)
                    if await self.sign_ins.grant(identity, authority) is not None:
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
            f"acts for a person, but {why}: [plugins.auth] identity reads `{source}`; pass the person's id "
            f"when invoking the agent (e.g. `context={{'user_id': ...}}`), or set [plugins.auth] identity. "
            "The call was not sent",
        )


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
