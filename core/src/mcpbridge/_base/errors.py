"""The errors of mcpbridge, one tree; each names the server, tool or key at fault and what
to do.

    MCPBridgeError
    ├── ConfigError            bad configuration (file, environment, Python arguments)
    ├── PluginError            a plugin could not be found, loaded or configured
    ├── ServerRequestError     a server's error answer to a request that is not a tool call
    ├── ResumeConflictError    another worker already resumed this paused call; nothing ran
    ├── ClaimStoreError        a resumed call could not be claimed (store unreachable); nothing ran
    └── ToolCallError          one tool call failed; also a LangChain ToolException, so the
        │                      agent gets an error ToolMessage and goes on
        ├── InvalidToolArguments   the arguments do not fit (schema, size, encoding)
        ├── InvalidHeader          a header of this call cannot be sent
        ├── CannotPauseError       a person's answer is needed but the run cannot pause
        ├── MCPToolError           the server answered `isError: true`
        ├── ToolTimeoutError       no answer within the time limit (also a TimeoutError)
        └── ServerConnectionError  the server is unreachable (also a ConnectionError)
            └── AuthenticationError  the server refused the credentials (HTTP 401/403, OAuth)

Plugins raise `ToolCallError` (or a subclass of their own) for a call that must fail with
a message to the model; `add_note()` adds to the message (e.g. "gave up after 3
attempts"). Anything else raised in the chain propagates to the caller.

An error's text goes everywhere (the model's ToolMessage, spans, events, logs, the CLI) and
often quotes a server (its stderr, its error message): so it is made safe once, here, when
the error is built: cut to `MAX_MESSAGE_CHARS`, then cleared of URL credentials and of every
secret the bridges of this process know (`mcpbridge._base.redaction.outward_text`).

The `ToolCallError` branch lives in `mcpbridge._base.tool_errors` (it is a LangChain
`ToolException`); the rest, here, needs no LangChain, so the plugin host and the CLI load
without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpbridge._base.redaction import MAX_QUOTED_CHARS, outward_text

if TYPE_CHECKING:
    from collections.abc import Iterable

    from pydantic import ValidationError

MAX_MESSAGE_CHARS = 2 * MAX_QUOTED_CHARS
"""The longest error text: the bridge's own words and a quoted server text or two."""


def error_text(text: str) -> str:
    """`text` made safe to show as an error's: for errors the bridge writes as text rather
    than raises (an error result of its own)."""
    return outward_text(text, MAX_MESSAGE_CHARS)


class MCPBridgeError(Exception):
    """Base class of every error mcpbridge raises on its own; its text arguments are made
    safe to show (see above) as it is built, so `str()` and `repr()` are too."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(error_text(arg) if isinstance(arg, str) else arg for arg in args))


class ConfigError(MCPBridgeError, ValueError):
    """The configuration (file, environment or Python arguments) is invalid."""

    @classmethod
    def unknown_server(cls, name: str, configured: Iterable[str]) -> ConfigError:
        """A server name that is not configured: refused, as a typo would act on nothing."""
        return cls(f"unknown server {name!r}; configured servers: {', '.join(configured) or 'none'}")


class PluginError(MCPBridgeError):
    """A plugin could not be found, loaded or configured."""


class ServerRequestError(MCPBridgeError):
    """A server answered a request that is not a tool call (`resources/read`, `prompts/get`,
    ...) with an error, or with a result that cannot be used. `server_name`, `request` (e.g.
    `"resources/read of 'file:///a.txt'"`) and the MCP error `code` (None for an unusable
    result) say which."""

    def __init__(self, server_name: str, request: str, problem: str, *, code: int | None = None) -> None:
        super().__init__(f"MCP server {server_name!r} answered {request} with an error: {problem}")
        self.server_name = server_name
        self.request = request
        self.code = code


class ResumeConflictError(MCPBridgeError):
    """A paused call (approval, elicitation) was resumed here, but another worker had already
    resumed the same interrupt and claimed its execution: this resume sent nothing. Not a
    `ToolException`, so the agent writes no result for it: the losing `graph.invoke` raises,
    and the thread's state holds the winner's result. `holder` names the winning worker."""

    def __init__(self, message: str, *, server_name: str, name: str, thread_id: str, holder: str) -> None:
        super().__init__(message)
        self.server_name = server_name
        self.name = name
        self.thread_id = thread_id
        self.holder = holder


class ClaimStoreError(MCPBridgeError):
    """The store where workers claim resumed calls failed; the call was not sent, and the
    same resume can be sent again once the store is reachable."""


def validation_problems(exc: ValidationError, *, unknown_key: str = "unknown key") -> list[tuple[str, str]]:
    """What pydantic found wrong, as (dotted key, message) pairs for a `ConfigError`: the
    message without pydantic's "Value error, " prefix, and `unknown_key` for a key the model
    does not have."""
    return [
        (
            ".".join(str(part) for part in error["loc"]),
            unknown_key if error["type"] == "extra_forbidden" else error["msg"].removeprefix("Value error, "),
        )
        for error in exc.errors()
    ]


def root_cause(exc: BaseException) -> BaseException:
    """`exc`, or for an exception group its first exception's root cause."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    """A one-line description of the root cause (`root_cause`)."""
    exc = root_cause(exc)
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text != type(exc).__name__ else text
