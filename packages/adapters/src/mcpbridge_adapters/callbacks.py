"""Callbacks for progress, logging and elicitation, told which server (and tool) they hear.

Progress and log messages that arrive while a tool call runs reach `on_progress` and
`on_logging_message` with `CallbackContext(server_name, tool_name)`; log messages sent
outside a tool call go to the `mcpbridge.server.<name>` Python logger only.
`on_elicitation` answers servers' questions (`mcp_context` is None): those legacy servers
ask mid-call and those of modern servers (rounds of an `InputRequiredResult`); see
`answering.Answering`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from mcp.client.session import ElicitationFnT, LoggingFnT
from mcp.shared.dispatcher import ProgressFnT
from mcp.types import ElicitRequestParams, ElicitResult, LoggingMessageNotificationParams

from mcpbridge import ToolCallHandler, ToolCallRequest

__all__ = [
    "CallbackContext",
    "Callbacks",
    "ElicitRequestParams",
    "ElicitationCallback",
    "ElicitationFnT",
    "LoggingFnT",
    "LoggingMessageCallback",
    "LoggingMessageNotificationParams",
    "ProgressCallback",
    "ProgressFnT",
]


@dataclass
class CallbackContext:
    """Which server (and, during a tool call, which tool) a callback hears from."""

    server_name: str
    tool_name: str | None = None


@runtime_checkable
class LoggingMessageCallback(Protocol):
    async def __call__(self, params: LoggingMessageNotificationParams, context: CallbackContext) -> None: ...


@runtime_checkable
class ProgressCallback(Protocol):
    async def __call__(
        self, progress: float, total: float | None, message: str | None, context: CallbackContext
    ) -> None: ...


@runtime_checkable
class ElicitationCallback(Protocol):
    async def __call__(
        self, mcp_context: Any, params: ElicitRequestParams, context: CallbackContext
    ) -> ElicitResult: ...


@dataclass
class _MCPCallbacks:
    """The callbacks in the mcp SDK's shapes (`ClientSession(logging_callback=...)`,
    `call_tool(progress_callback=...)`), told their `CallbackContext`."""

    logging_callback: LoggingFnT | None = None
    progress_callback: ProgressFnT | None = None
    elicitation_callback: ElicitationFnT | None = None


@dataclass
class Callbacks:
    """Callbacks for the client (`MultiServerMCPClient(callbacks=Callbacks(...))`)."""

    on_logging_message: LoggingMessageCallback | None = None
    on_progress: ProgressCallback | None = None
    on_elicitation: ElicitationCallback | None = None

    def to_mcp_format(self, *, context: CallbackContext) -> _MCPCallbacks:
        """These callbacks as the mcp SDK calls them, with `context` as the last argument."""
        on_log, on_progress, on_elicitation = self.on_logging_message, self.on_progress, self.on_elicitation

        async def logging_callback(params: LoggingMessageNotificationParams) -> None:
            await on_log(params, context)  # type: ignore[misc]

        async def progress_callback(progress: float, total: float | None, message: str | None) -> None:
            await on_progress(progress, total, message, context)  # type: ignore[misc]

        async def elicitation_callback(mcp_context: Any, params: ElicitRequestParams) -> ElicitResult:
            return await on_elicitation(mcp_context, params, context)  # type: ignore[misc]

        return _MCPCallbacks(
            logging_callback=logging_callback if on_log is not None else None,
            progress_callback=progress_callback if on_progress is not None else None,
            elicitation_callback=elicitation_callback if on_elicitation is not None else None,  # type: ignore[arg-type]
        )

    def interceptor(self) -> Any:
        """The interceptor that hands a call's progress and log events to the callbacks."""
        if self.on_progress is None and self.on_logging_message is None:
            return None
        return _Listening(self)


class _Listening:
    """Listens to one call's events; the callbacks it starts finish before the call returns."""

    def __init__(self, callbacks: Callbacks) -> None:
        self.callbacks = callbacks

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        context = CallbackContext(server_name=request.server_name, tool_name=request.name)
        pending: list[asyncio.Future[Any]] = []

        def listen(event: str, data: Mapping[str, Any]) -> None:
            call = self._callback(event, data, context)
            if call is not None:
                pending.append(asyncio.ensure_future(call))

        try:
            return await handler(request.override(observers=(*request.observers, listen)))
        finally:
            if pending:
                await asyncio.gather(*pending)

    def _callback(self, event: str, data: Mapping[str, Any], context: CallbackContext) -> Any:
        on_progress, on_log = self.callbacks.on_progress, self.callbacks.on_logging_message
        if event == "progress" and on_progress is not None:
            reply = on_progress(data["progress"], data.get("total"), data.get("message"), context)
        elif event == "log" and on_log is not None:
            params = LoggingMessageNotificationParams(level=data["level"], logger=data.get("logger"), data=data["data"])
            reply = on_log(params, context)
        else:
            return None
        return reply if inspect.isawaitable(reply) else None
