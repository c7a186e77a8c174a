"""Callbacks for progress, logging and elicitation, told which server (and tool) they hear.

Progress and log messages that arrive while a tool call runs reach `on_progress` and
`on_logging_message` with `CallbackContext(server_name, tool_name)`; log messages sent
outside a tool call go to the `mcpbridge.server.<name>` Python logger only.
`on_elicitation` answers servers' questions (`mcp_context` is None): those legacy servers
ask mid-call and those of modern servers (rounds of an `InputRequiredResult`); see
`answering.Answering`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from mcp.client.session import ElicitationFnT, LoggingFnT
from mcp.shared.dispatcher import ProgressFnT
from mcp.types import ElicitRequestParams, ElicitResult, LoggingMessageNotificationParams

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

        def told(callback: Callable[..., Awaitable[Any]] | None) -> Any:
            if callback is None:
                return None

            async def call(*args: Any) -> Any:
                return await callback(*args, context)

            return call

        return _MCPCallbacks(told(self.on_logging_message), told(self.on_progress), told(self.on_elicitation))

    @property
    def listening(self) -> bool:
        """Whether a callback hears what comes with a tool call (progress, log messages)."""
        return self.on_progress is not None or self.on_logging_message is not None

    def hear(self, event: str, data: Mapping[str, Any], context: CallbackContext) -> Awaitable[Any] | None:
        """The callback's work for one event of a call (`progress`, `log`); None when no
        callback hears it."""
        if event == "progress" and self.on_progress is not None:
            reply = self.on_progress(data["progress"], data.get("total"), data.get("message"), context)
        elif event == "log" and self.on_logging_message is not None:
            params = LoggingMessageNotificationParams(level=data["level"], logger=data.get("logger"), data=data["data"])
            reply = self.on_logging_message(params, context)
        else:
            return None
        return reply if inspect.isawaitable(reply) else None
