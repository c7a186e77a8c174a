"""The `ToolCallError` branch of the error tree (see `mcpbridge._base.errors`): a failed tool
call, also a LangChain `ToolException`, so the agent gets an error ToolMessage and goes on.
Apart from the other errors so that what needs no LangChain (the plugin host, the CLI) does
not import it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.tools import ToolException

from mcpbridge._base.errors import MCPBridgeError, describe, error_text, outward_text
from mcpbridge._base.fields import HEADER_NAME, HEADER_VALUE, RESERVED_HEADERS, header_problem

if TYPE_CHECKING:
    from typing import Self

    from mcpbridge._base.pipeline import ToolCallRequest


class ToolCallError(MCPBridgeError, ToolException):
    """One tool call failed; the agent gets an error ToolMessage with this message.

    `server_name` and `name` (the server's own tool name) say which call; either may be None
    for a failure that is not about one tool (listing a server's tools)."""

    def __init__(self, message: str, *, server_name: str | None = None, name: str | None = None) -> None:
        super().__init__(message)
        self.server_name, self.name = server_name, name

    @classmethod
    def not_offered(cls, server_name: str, name: str, why: str) -> Self:
        """The refusal of a call made for a definition of the tool the server no longer offers
        (`why`): it was not sent."""
        return cls(
            f"MCP tool {name!r} on server {server_name!r} is not the tool this object was built from: {why}. "
            "The call was not sent: list the tools again (`await bridge.list_tools()`) and call the tool it returns",
            server_name=server_name,
            name=name,
        )

    @classmethod
    def about(cls, request: ToolCallRequest, problem: str) -> Self:
        """`MCP tool 'name' on server 'server' <problem>`, naming the call's server and tool."""
        return cls(
            f"MCP tool {request.name!r} on server {request.server_name!r} {problem}",
            server_name=request.server_name,
            name=request.name,
        )

    def message(self) -> str:
        """The text the model reads: the message and any notes added on the way out."""
        notes = getattr(self, "__notes__", ())
        return error_text(f"{self} ({'; '.join(notes)})") if notes else str(self)


class InvalidToolArguments(ToolCallError):
    """The arguments do not match the tool's input schema (or cannot travel); the server was
    not called."""


class InvalidHeader(ToolCallError):
    """A header of this call cannot be sent (RFC 9110 name or value rules); the server was not
    called and the shared session is untouched. The message names the header, never its value."""

    def __init__(self, server_name: str, header: str, problem: str) -> None:
        super().__init__(f"server {server_name!r}: {problem}; the server was not called", server_name=server_name)
        self.header = header


class CannotPauseError(ToolCallError):
    """A call needed a person's answer but the run cannot pause; the call was not made."""


class MCPToolError(ToolCallError):
    """The server answered a tool call with `isError: true`; `.result` is its `CallToolResult`."""

    def __init__(
        self, message: str, result: Any = None, *, server_name: str | None = None, name: str | None = None
    ) -> None:
        super().__init__(message, server_name=server_name, name=name)
        self.result = result


class ToolTimeoutError(ToolCallError, TimeoutError):
    """A tool call did not answer within its time limit."""

    def __init__(self, server_name: str, name: str, limit: float) -> None:
        super().__init__(
            f"MCP tool {name!r} on server {server_name!r} timed out after {limit:g} s "
            "(raise `timeout` for this server in the config, or pass a larger per-call timeout)",
            server_name=server_name,
            name=name,
        )
        self.limit = limit


class ServerConnectionError(ToolCallError, ConnectionError):
    """A server could not be reached, or its connection broke during a call.

    `sent` says whether the request may have reached the server: False when the session
    could not even be opened, so retrying cannot run a tool twice."""

    verdict = "is unreachable"

    def __init__(
        self, server_name: str, cause: BaseException | str, *, name: str | None = None, sent: bool = True
    ) -> None:
        where = f"tool {name!r} on server {server_name!r}" if name else f"server {server_name!r}"
        reason = cause if isinstance(cause, str) else describe(cause)
        super().__init__(f"MCP {where} {self.verdict}: {reason}", server_name=server_name, name=name)
        self.cause = outward_text(cause) if isinstance(cause, str) else cause
        self.sent = sent


class AuthenticationError(ServerConnectionError):
    """The server refused the credentials (HTTP 401, or 403), or the `auth` flow failed (an
    OAuth authorization server refused or is down). The server was reached, and the fix is
    in the configuration; the request was not run (`sent` is False). A `ServerConnectionError`,
    so that what handles a server that cannot be used now (`on_server_error`,
    `handle_transport_errors`, claims) handles this one too. `status` is the HTTP status
    (None for an `auth` flow that failed), `challenge` the server's `WWW-Authenticate`."""

    verdict = "refused the credentials"

    def __init__(
        self,
        server_name: str,
        problem: str,
        *,
        status: int | None = None,
        challenge: str | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(server_name, problem, name=name, sent=False)
        self.status, self.challenge = status, challenge


def check_headers(server: str, headers: Mapping[str, str]) -> None:
    """Raise `InvalidHeader` for the first header of `headers` that cannot be sent safely.

    Cheap enough for every tool call (docs/performance.md): call it before the request reaches
    the transport."""
    good = _good_names
    for name, value in headers.items():
        if name not in good:
            if type(name) is not str or HEADER_NAME.fullmatch(name) is None or name.lower() in RESERVED_HEADERS:
                raise InvalidHeader(server, str(name), header_problem(name) or "invalid header name")
            if len(good) < _MAX_GOOD_NAMES:
                good.add(name)
        # Fast path in C: visible ASCII and spaces, no space at either end (strip returns the
        # same object when it removes nothing). Tabs inside a value take the regex.
        if type(value) is str and value.isascii() and value.isprintable() and value.strip(" ") is value:
            continue
        if type(value) is not str or HEADER_VALUE.fullmatch(value) is None:
            raise InvalidHeader(server, name, header_problem(name, value) or "invalid header value")


_good_names: set[str] = set()
"""Header names already accepted (names repeat: a handful per server), so the name check is
one set lookup on the hot path. Bounded, so names made up per call cannot grow it forever."""
_MAX_GOOD_NAMES = 4096
