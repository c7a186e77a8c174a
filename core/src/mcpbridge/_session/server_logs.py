"""A server's log messages (`notifications/message`) as Python log records on
`mcpbridge.server.<name>`."""

from __future__ import annotations

import json
import logging
from typing import Any

from mcp.types import LoggingLevel, LoggingMessageNotificationParams

MAX_LOG_CHARS = 4000
"""A server's log message is cut to this many characters before it reaches Python logging."""

LOG_LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 5,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
"""MCP (syslog) levels as Python logging levels."""


def server_logger(server_name: str) -> logging.Logger:
    """The logger a server's log messages go to: `mcpbridge.server.<server name>`."""
    return logging.getLogger(f"mcpbridge.server.{server_name}")


def wanted_level(server_name: str) -> LoggingLevel:
    """The MCP level to ask a modern server for: what its logger lets through, at most `info`
    (so the events stream hears `info` and above even when Python logging is quieter)."""
    effective = server_logger(server_name).getEffectiveLevel()
    return "debug" if effective <= logging.DEBUG else "info"


def log_text(data: Any) -> str:
    """A server's log data as one bounded line: JSON for anything but a string, control
    characters escaped (no forged log lines), cut at `MAX_LOG_CHARS`."""
    text = data if isinstance(data, str) else json.dumps(data, default=str, ensure_ascii=False)
    if len(text) > MAX_LOG_CHARS:
        text = f"{text[:MAX_LOG_CHARS]}… ({len(text) - MAX_LOG_CHARS} more characters)"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def log_to_python(server_name: str, params: LoggingMessageNotificationParams) -> None:
    """Log a server's message on `mcpbridge.server.<name>`; the text is an argument, never a
    format string, so a server cannot break (or forge) our logging."""
    level = LOG_LEVELS.get(params.level, logging.WARNING)
    target = server_logger(server_name)
    if target.isEnabledFor(level):
        source = f"[{log_text(params.logger)}] " if params.logger else ""
        target.log(
            level,
            "%s%s",
            source,
            log_text(params.data),
            extra={"server_name": server_name, "mcp_level": params.level, "mcp_logger": params.logger},
        )
