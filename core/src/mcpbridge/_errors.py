"""Exception types of mcpbridge: each names the server, tool or key at fault and what to do."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import ToolException


class MCPBridgeError(Exception):
    """Base class of every error mcpbridge raises on its own."""


class ConfigError(MCPBridgeError, ValueError):
    """The configuration (file, environment or Python arguments) is invalid."""


class PluginError(MCPBridgeError):
    """A plugin could not be found, loaded or configured."""


class ServerConnectionError(MCPBridgeError, ConnectionError):
    """A server could not be reached, or its connection broke during a call.

    `sent` says whether the request may have reached the server: False when the session
    could not even be opened, so retrying cannot run a tool twice."""

    def __init__(self, server: str, cause: BaseException | str, *, tool: str | None = None, sent: bool = True) -> None:
        self.server = server
        self.tool = tool
        self.cause = cause
        self.sent = sent
        where = f"tool {tool!r} on server {server!r}" if tool else f"server {server!r}"
        reason = cause if isinstance(cause, str) else describe(cause)
        super().__init__(f"MCP {where} is unreachable: {reason}")


class ToolTimeoutError(MCPBridgeError, TimeoutError):
    """A tool call did not answer within its time limit."""

    def __init__(self, server: str, tool: str, limit: float) -> None:
        self.server = server
        self.tool = tool
        self.limit = limit
        super().__init__(
            f"MCP tool {tool!r} on server {server!r} timed out after {limit:g} s "
            "(raise `timeout` for this server in the config, or pass a larger per-call timeout)"
        )


class MCPToolError(ToolException):
    """The server answered a tool call with `isError: true`; `.result` is its `CallToolResult`."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


class InvalidToolArguments(ToolException):
    """The arguments do not match the tool's input schema; the server was not called."""


class InvalidHeader(MCPBridgeError, ToolException):
    """A header of this call cannot be sent (RFC 9110 name or value rules); the server was not
    called and the shared session is untouched. The message names the header, never its value."""

    def __init__(self, server: str, header: str, problem: str) -> None:
        self.server = server
        self.header = header
        super().__init__(f"server {server!r}: {problem}; the server was not called")


def describe(exc: BaseException) -> str:
    """A one-line description of the root cause, unwrapping exception groups and chains."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text != type(exc).__name__ else text
