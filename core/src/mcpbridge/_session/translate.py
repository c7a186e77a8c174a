"""Foreign errors as the bridge's own, in one place: what the mcp SDK, httpx, anyio, the OS
and pydantic raise while a session opens or a request waits for its answer becomes one of
`mcpbridge._base.errors`, or, for a tool call, an error result.

The rule: an error the server sends is that server's answer to that one call (an error
`CallToolResult` for a tool call, a `ServerRequestError` for any other request); only a
transport that really ended is a `ServerConnectionError` (the session is dropped, the next
call reconnects), and only a wait that really expired is a `ToolTimeoutError`. A server that
refused the credentials (HTTP 401, 403, an `auth` flow that failed) was reached: that is an
`AuthenticationError`, saying what the server said and what to check.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast, get_args

import anyio
import httpx2
from mcp import MCPError
from mcp.types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    REQUEST_TIMEOUT,
    CallToolResult,
    InputRequiredResult,
    TextContent,
)
from pydantic import ValidationError

from mcpbridge._base.config import ServerConfig
from mcpbridge._base.errors import ServerRequestError, describe, error_text, redact_url, root_cause
from mcpbridge._base.pipeline import error_result
from mcpbridge._base.protocol import METHODS, Capability
from mcpbridge._base.tool_errors import AuthenticationError, ServerConnectionError, ToolTimeoutError
from mcpbridge._session.transports import HTTPRefusal, OpenedSession

WEDGED_AFTER = 1.0
"""Seconds a write may wait for the server to take it (stdio: read its stdin) before a
request's timeout drops the session as wedged: a server that reads nothing for that long
holds every request queued behind the write."""

TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    httpx2.TransportError,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    OSError,
    BaseExceptionGroup,
)
"""What a transport raises when it broke under a request."""
STAND_IN = "Server returned an error response"
"""The mcp streamable HTTP client's error for an HTTP error status whose body is no JSON-RPC
error: it names neither, so the status and the server's text are taken from `OpenedSession.refused`."""
CREDENTIALS = (401, 403)
REFUSED_BY_CLIENT: Mapping[str, Capability] = {
    "Elicitation not supported": "elicitation",
    "Sampling not supported": "sampling",
    "List roots not supported": "roots",
}
"""What the mcp client answers a server's request that nothing answers; servers pass it on as
their error (a JSON-RPC error, or a tool error)."""
NO_BACK_CHANNEL = "no back-channel for server-initiated requests"
"""What mcp 2.x servers say when a tool pushes a request (`ctx.elicit`) on the modern protocol,
which has no channel for it."""


class Translator:
    """The foreign errors of one server's session as the bridge's errors. `drop(opened, why)`
    drops the session behind `opened` (`why` says why when its transport is still open);
    `unanswered(capability)` hints at the plugin that answers a capability the server requires."""

    def __init__(
        self,
        server: str,
        drop: Callable[[OpenedSession, str | None], Awaitable[None]],
        unanswered: Callable[[Capability | None], str],
    ) -> None:
        self.server, self._drop, self._unanswered = server, drop, unanswered

    async def failed(
        self,
        exc: BaseException,
        opened: OpenedSession,
        started: float,
        *,
        tool: str | None = None,
        what: str | None = None,
        limit: float | None = None,
    ) -> CallToolResult:
        """`exc`, raised by a request sent at `started` on the session behind `opened`, as the
        bridge's error: for the tool call to `tool` a server's error is the error result this
        returns (our own `limit` running out a `ToolTimeoutError`), for a request named `what` a
        `ServerRequestError`; for listing tools (neither given) a `ServerConnectionError`."""
        if (refusal := _refusal(exc, opened)) is not None:
            if refusal.status in CREDENTIALS:
                raise self._refused(refusal, tool) from None
            exc = MCPError(code=INTERNAL_ERROR, message=str(refusal))  # the status and text, not the stand-in
        if isinstance(exc, MCPError):
            if exc.code == REQUEST_TIMEOUT:
                if (stalled := opened.write_stalled()) >= WEDGED_AFTER:
                    # Whatever waits behind that write would time out too: drop the session.
                    await self._drop(opened, f"the server read none of its stdin for {stalled:.1f} s")
                # Our own wait ran out (a server's own -32001 comes sooner):
                if tool is not None and limit is not None and time.monotonic() >= started + limit:
                    error = ToolTimeoutError(self.server, tool, limit)
                    if opened.broke_because:
                        error.add_note(f"{opened.broke_because}; the next call starts it again")
                    raise error from None
            if exc.code == CONNECTION_CLOSED and (opened.ended.is_set() or opened.closing):
                closed_by_us = opened.closing and not opened.broke
                await self._drop(opened, None)  # waits for the transport to end: the exit code is known after
                reason = "the bridge is closing" if closed_by_us else opened.end_reason()
                raise ServerConnectionError(self.server, reason, name=tool) from exc
            if what is not None:
                raise ServerRequestError(self.server, what, f"{exc.message} (code {exc.code})", code=exc.code) from exc
            if tool is None:
                raise ServerConnectionError(self.server, exc) from exc
            missing = exc.code == MISSING_REQUIRED_CLIENT_CAPABILITY
            hint = self._unanswered(_required_capability(exc.data)) if missing else self.pushed(exc.message)
            hint = f". {hint}" if hint else ""
            return error_result(
                f"MCP server {self.server!r} answered the call to {tool!r} with an error: "
                f"{exc.message} (code {exc.code}){hint}"
            )
        if isinstance(exc, ValidationError):
            problem = _first_problem(exc)
            if what is not None:
                raise ServerRequestError(self.server, what, f"malformed result: {problem}") from None
            if tool is None:
                raise ServerConnectionError(self.server, f"malformed tools/list result: {problem}") from None
            return self.malformed(tool, problem)
        if isinstance(exc, TRANSPORT_ERRORS):
            await self._drop(opened, None)
            raise ServerConnectionError(self.server, exc, name=tool) from exc
        if isinstance(exc, RuntimeError):  # the SDK's check of structured content against the
            if what is not None:  # output schema, or an input-required result where none can be answered
                raise ServerRequestError(self.server, what, str(exc)) from None
            if tool is not None:
                return self.malformed(tool, str(exc))
        raise exc

    def pushed(self, text: str) -> str | None:
        """The hint for a server's error `text` saying that a request it pushed mid-call was
        refused: what answers it, or, on the modern protocol that cannot carry it, the legacy one."""
        if NO_BACK_CHANNEL in text:
            capability = next((answers for method, answers in METHODS.items() if method in text), None)
            return (
                f"the server asks for {capability or 'input'} mid-call, which the modern protocol (2026-07-28) "
                f'has no channel for: set `mode = "legacy"` for server {self.server!r} and answer it there '
                f"({self._unanswered(capability)})"
            )
        refused = next((answers for said, answers in REFUSED_BY_CLIENT.items() if said in text), None)
        return None if refused is None else self._unanswered(refused)

    def hinted(self, result: CallToolResult | InputRequiredResult) -> CallToolResult | InputRequiredResult:
        """`result` itself, or an error result whose text says a pushed request was refused (see
        `pushed`) with the hint as one more text block."""
        if isinstance(result, CallToolResult) and result.is_error:
            text = " ".join(item.text for item in result.content if isinstance(item, TextContent))
            if (hint := self.pushed(text)) is not None and hint not in text:  # not our own error result
                hinted = [*result.content, TextContent(type="text", text=f"mcpbridge: {error_text(hint)}")]
                return result.model_copy(update={"content": hinted})
        return result

    def not_opened(self, exc: BaseException, opened: OpenedSession) -> ServerConnectionError:
        """What opening the session behind `opened` raised, as the error its caller gets."""
        from mcp.client.auth import OAuthFlowError  # mcp's OAuth client: imported when opening failed, not before

        if isinstance(exc, asyncio.CancelledError):
            return ServerConnectionError(self.server, "connecting was cancelled", sent=False)
        if isinstance(root_cause(exc), OAuthFlowError):
            return AuthenticationError(self.server, f"its `auth` flow failed: {describe(exc)}: check `auth`")
        refusal = _refusal(exc, opened) or (opened.refused if opened.refused and opened.refused.status == 404 else None)
        if refusal is not None and refusal.status in CREDENTIALS:
            return self._refused(refusal)
        if (unreached := self._unreached(root_cause(exc), refusal, opened.config)) is not None:
            return ServerConnectionError(self.server, unreached, sent=False)
        if refusal is not None:
            return ServerConnectionError(self.server, str(refusal), sent=False)
        return ServerConnectionError(self.server, opened.end_reason() if _is_transport_end(exc) else exc, sent=False)

    def _unreached(self, exc: BaseException, refusal: HTTPRefusal | None, config: ServerConfig | None) -> str | None:
        """Why the server's own keys reach nothing, naming the key to fix: a stdio `command`
        that is no program here, a `url` nothing answers at, or whose path the server does not serve."""
        key = f"servers.{self.server}"
        if config is not None and config.command is not None and isinstance(exc, FileNotFoundError | PermissionError):
            if config.cwd is not None and exc.filename == config.cwd:
                return f"`{key}.cwd`: no such directory {config.cwd!r}"
            problem = "no such program" if isinstance(exc, FileNotFoundError) else "not allowed to run"
            return f"`{key}.command`: {problem} {config.command!r} (check the name and PATH, or give its full path)"
        if config is None or config.url is None:
            return None
        url = redact_url(config.url)
        if refusal is not None and refusal.status == 404:
            return (
                f"{url} answered {refusal}: check the path of `{key}.url` (servers usually serve streamable "
                "HTTP at `/mcp`, SSE at `/sse`)"
            )
        if isinstance(exc, httpx2.ConnectError):
            return f"nothing answers at {url} ({describe(exc)}): check that the server runs, and `{key}.url`"
        return None

    def _refused(self, refusal: HTTPRefusal, tool: str | None = None) -> AuthenticationError:
        fix = f"check `headers.Authorization` / `auth` for server {self.server!r}"
        if refusal.status == 403:
            fix += " (its token may lack a scope), and that the server accepts this client (a Host or Origin check)"
        return AuthenticationError(
            self.server, f"{refusal}: {fix}", status=refusal.status, challenge=refusal.challenge, name=tool
        )

    def malformed(self, tool: str, problem: str) -> CallToolResult:
        """The error result of a server's answer to `tool` that breaks the protocol or the tool's output schema."""
        return error_result(f"MCP server {self.server!r} returned a malformed result for {tool!r}: {problem}")


def _refusal(exc: BaseException, opened: OpenedSession) -> HTTPRefusal | None:
    """The HTTP error status behind `exc`: the mcp client's stand-in for it (streamable HTTP),
    or httpx's error naming it (SSE)."""
    exc = root_cause(exc)
    stand_in = isinstance(exc, MCPError) and exc.code == INTERNAL_ERROR and exc.message == STAND_IN
    return opened.refused if stand_in or isinstance(exc, httpx2.HTTPStatusError) else None


def _is_transport_end(exc: BaseException) -> bool:
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_transport_end(inner) for inner in exc.exceptions)
    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED


def _first_problem(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "it does not match the MCP schema"
    error = errors[0]
    where = ".".join(str(part) for part in error["loc"]) or "result"
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return f"{where}: {error['msg']}{more}"


def _required_capability(data: Any) -> Capability | None:
    """The client capability a server's "missing required client capability" error names
    (`data.requiredCapabilities`), when it is one that plugins answer."""
    required = data.get("requiredCapabilities") if isinstance(data, Mapping) else None
    if not isinstance(required, Mapping):
        return None
    return next((cast(Capability, capability) for capability in get_args(Capability) if capability in required), None)
