"""What a server says about itself in the initialize handshake, as langchain-mcp-adapters
returns it: an `InitializeResult` that also answers to the mcp 1.x names (`serverInfo`,
`protocolVersion`) and to mcpbridge's `ServerInfo` ones (`name`, `version`, `title`)."""

from __future__ import annotations

from typing import Any

from mcp import ClientSession
from mcp.types import Implementation, InitializeResult, ServerCapabilities

from mcpbridge_adapters.callbacks import CallbackContext, Callbacks, _MCPCallbacks
from mcpbridge_adapters.interceptors import legacy
from mcpbridge_adapters.sessions import Connection, create_session, in_new_session
from mcpbridge_adapters.shared import SharedSession

__all__ = ["ALREADY_INITIALIZED_ERROR", "LegacyInitializeResult", "load_mcp_server_info"]

ALREADY_INITIALIZED_ERROR = (
    "The provided ClientSession has already been initialized. load_mcp_server_info() performs the initialize "
    "handshake itself, so it needs a session that has not been initialized yet. Either pass an uninitialized "
    "session (e.g. MultiServerMCPClient.session(name, auto_initialize=False)), or omit `session` and pass "
    "`connection` to have a temporary session created (or use MultiServerMCPClient.get_server_info())."
)


class LegacyInitializeResult(InitializeResult):
    """An `InitializeResult` with the mcp 1.x attribute names as well."""

    @property
    def serverInfo(self) -> Implementation:  # the mcp 1.x names
        return self.server_info

    @property
    def protocolVersion(self) -> str:
        return self.protocol_version

    @property
    def name(self) -> str:
        return self.server_info.name

    @property
    def version(self) -> str:
        return self.server_info.version

    @property
    def title(self) -> str | None:
        return self.server_info.title


def session_result(session: ClientSession) -> LegacyInitializeResult:
    """What an open, initialized session learnt from its server."""
    return LegacyInitializeResult(
        protocol_version=session.protocol_version or "",
        capabilities=session.server_capabilities or ServerCapabilities(),
        server_info=session.server_info or Implementation(name="", version=""),
        instructions=session.instructions,
    )


def _initialized(session: Any) -> bool:
    if hasattr(session, "get_server_capabilities") and not isinstance(session, ClientSession):
        return session.get_server_capabilities() is not None  # an object shaped like an mcp 1.x session
    return getattr(session, "server_capabilities", None) is not None


async def load_mcp_server_info(
    session: ClientSession | SharedSession | None,
    *,
    connection: Connection | None = None,
    callbacks: Callbacks | None = None,
    server_name: str | None = None,
) -> Any:
    """The server's `InitializeResult`: `initialize()` on `session`, which must not have been
    initialized yet, or on a temporary session of `connection` (with `callbacks`, told
    `server_name`)."""
    if session is not None:
        if _initialized(session):
            raise ValueError(ALREADY_INITIALIZED_ERROR)
        return legacy(await session.initialize(), LegacyInitializeResult)
    if connection is None:
        raise ValueError("Either a session or a connection config must be provided")
    context = CallbackContext(server_name=server_name or "unknown")
    mcp_callbacks = callbacks.to_mcp_format(context=context) if callbacks is not None else _MCPCallbacks()
    result = await in_new_session(
        create_session(connection, mcp_callbacks=mcp_callbacks), lambda session: session.initialize()
    )
    if result is None:
        raise RuntimeError(
            f"The MCP initialize handshake with server '{server_name or '[unknown server]'}' produced no result "
            "and raised no error; the session was closed by the transport."
        )
    return legacy(result, LegacyInitializeResult)
