"""The interceptor: run the inner chain again after a transport failure or timeout, with
exponential backoff and jitter, but only for calls that are safe to repeat."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from mcp.types import CallToolResult, TextContent, Tool
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    retry_if_result,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential_jitter,
)

from mcpbridge import (
    AuthenticationError,
    ServerConnectionError,
    ToolCallHandler,
    ToolCallRequest,
    ToolTimeoutError,
    describe,
    result_text,
    tool_hints,
)
from mcpbridge_retry import ARTIFACT_TYPE, EVENT
from mcpbridge_retry.settings import Policy, RetrySettings

logger = logging.getLogger("mcpbridge_retry")


class RetryInterceptor:
    """Retries one bridge's calls according to its `[plugins.retry]` settings."""

    def __init__(self, settings: RetrySettings) -> None:
        self._settings = settings
        self._policies: dict[tuple[str, str], Policy] = {}

    def policy(self, server_name: str, name: str) -> Policy:
        """The policy of one (server, MCP tool name), resolved once."""
        key = (server_name, name)
        if key not in self._policies:
            self._policies[key] = self._settings.policy(server_name, name)
        return self._policies[key]

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        """Tools whose policy is enabled: by default every tool, as a call whose session could
        not be opened sent nothing and may be repeated whatever the tool does."""
        return self.policy(server_name, tool.name).enabled

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        policy = self.policy(request.server_name, request.name)
        if not policy.enabled:
            return await handler(request)
        call = _Call(request, handler, policy, attempts=1, started=time.monotonic())
        try:
            # The first attempt runs here; tenacity takes over only after it failed in a way
            # that may be retried, so a call that succeeds pays for no retry machinery.
            try:
                result = await handler(request)
            except BaseException as exc:
                if not call.may_retry_error(exc):
                    raise
                result = await call.retry(exc)
            else:
                if call.may_retry_result(result):
                    result = await call.retry(result)
        except (ServerConnectionError, ToolTimeoutError) as exc:
            exc.add_note(call.explain(exc))
            raise
        finally:
            request.artifact.append({"type": ARTIFACT_TYPE, "attempts": call.attempts})
        if call.attempts > 1 and isinstance(result, CallToolResult) and result.is_error:
            note = TextContent(type="text", text=f"(mcpbridge-retry: gave up after {call.attempts} attempts)")
            result = result.model_copy(update={"content": [*result.content, note]})
        return result


@dataclass
class _Call:
    """One tool call and its attempts."""

    request: ToolCallRequest
    handler: ToolCallHandler
    policy: Policy
    attempts: int = 0
    started: float = 0.0
    """When the first attempt started (`time.monotonic()`)."""

    @cached_property
    def unsafe(self) -> str | None:
        """Why repeating this call is not safe, or None; read only once an attempt failed."""
        return unsafe_reason(self.policy, self.request)

    async def retry(self, first: Any) -> Any:
        """Retry after the first attempt ended in `first` (a result, or the exception it raised)."""
        replayed = False

        async def attempt() -> Any:
            """tenacity's first attempt is the one already made; then real ones."""
            nonlocal replayed
            if replayed:
                return await self._attempt()
            replayed = True
            if isinstance(first, BaseException):
                raise first
            return first

        policy = self.policy
        elapsed = time.monotonic() - self.started
        retrying = AsyncRetrying(
            stop=stop_after_attempt(policy.attempts) | stop_before_delay(max(policy.max_elapsed - elapsed, 0)),
            wait=wait_exponential_jitter(multiplier=policy.initial, max=policy.max, jitter=policy.initial),
            retry=retry_if_exception(self.may_retry_error) | retry_if_result(self.may_retry_result),
            before_sleep=self._report,
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
        )
        return await retrying(attempt)

    async def _attempt(self) -> Any:
        self.attempts += 1
        return await self.handler(self.request)

    def may_retry_error(self, exc: BaseException) -> bool:
        """Only transport failures and timeouts; anything else, above all a LangGraph
        interrupt (GraphBubbleUp: repeating it would ask the user twice), a cancellation or
        refused credentials (the same credentials are refused again), passes through untouched."""
        if isinstance(exc, AuthenticationError):
            return False
        if isinstance(exc, ServerConnectionError):
            # A session that could not be opened sent nothing: safe to retry for any tool.
            return self.unsafe is None or not exc.sent
        return isinstance(exc, ToolTimeoutError) and self.policy.on_timeout and self.unsafe is None

    def may_retry_result(self, result: Any) -> bool:
        if not (self.policy.error_patterns and self.unsafe is None):
            return False
        if not isinstance(result, CallToolResult) or not result.is_error:
            return False
        text = result_text(result)
        return any(pattern.search(text) for pattern in self.policy.error_patterns)

    def _report(self, state: RetryCallState) -> None:
        outcome = state.outcome
        failure = outcome.exception() if outcome is not None else None
        error = describe(failure) if failure is not None else "error result: " + _first_line(outcome)
        delay = state.upcoming_sleep
        request = self.request
        logger.info(
            "mcpbridge-retry: %s/%s attempt %d failed (%s); retrying in %.2f s",
            request.server_name,
            request.name,
            state.attempt_number,
            error,
            delay,
        )
        request.notify(EVENT, attempt=state.attempt_number + 1, error=error, delay=delay)

    def explain(self, exc: BaseException) -> str:
        """Why the final error is final, for its message."""
        if self.attempts > 1:
            return f"gave up after {self.attempts} attempts"
        if self.unsafe is not None:
            return f"not retried: {self.unsafe}"
        if isinstance(exc, ToolTimeoutError) and not self.policy.on_timeout:
            return "not retried: retrying timeouts is off (`on_timeout = false`)"
        return "gave up after 1 attempt"


def unsafe_reason(policy: Policy, request: ToolCallRequest) -> str | None:
    """None when repeating the call is safe; else why it is not (for the error message)."""
    if policy.idempotent is not None:
        return None if policy.idempotent else "a rule in [plugins.retry] sets `idempotent = false` for it"
    if tool_hints(request.tool).idempotent:
        return None
    rule = f'{{ server = "{request.server_name}", tool = "{request.name}", idempotent = true }}'
    return (
        f"MCP tool {request.name!r} on server {request.server_name!r} is not annotated readOnlyHint or "
        "idempotentHint, so the failed call may already have run on the server; if repeating it is safe, "
        f"add the rule `{rule}` to [plugins.retry] rules"
    )


SHOWN_CHARS = 300
"""The most of a server's error text a retry's log line and event quote: a 48 MB error
result used to be logged whole at every attempt (1 s more on the event loop)."""


def _first_line(outcome: Any) -> str:
    result = outcome.result() if outcome is not None else None
    text = result_text(result) if isinstance(result, CallToolResult) else ""
    line = text[: SHOWN_CHARS + 1].splitlines()[0] if text else "(no text)"
    return line if len(line) <= SHOWN_CHARS else line[:SHOWN_CHARS] + "…"
