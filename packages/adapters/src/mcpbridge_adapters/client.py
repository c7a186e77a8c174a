"""`MultiServerMCPClient` with langchain-mcp-adapters' constructor and methods, on an
`MCPBridge`: sessions open on first use and stay open (close them with `await
client.aclose()` or `async with client:`), mcpbridge plugins run on every call."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, nullcontext
from types import TracebackType
from typing import Any

from langchain_core.documents.base import Blob
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import BaseTool
from mcp import ClientSession

from mcpbridge_adapters.callbacks import CallbackContext, Callbacks
from mcpbridge_adapters.interceptors import ToolCallInterceptor
from mcpbridge_adapters.prompts import load_mcp_prompt
from mcpbridge_adapters.resources import load_mcp_resources
from mcpbridge_adapters.server_info import LegacyInitializeResult, session_result
from mcpbridge_adapters.sessions import (
    Connection,
    SSEConnection,
    StdioConnection,
    StreamableHttpConnection,
    WebsocketConnection,
    create_session,
)
from mcpbridge_adapters.shared import ClientBridge, ClientServer, SharedSession
from mcpbridge_adapters.tools import load_mcp_tools

__all__ = [
    "Callbacks",
    "MultiServerMCPClient",
    "SSEConnection",
    "StdioConnection",
    "StreamableHttpConnection",
    "WebsocketConnection",
]

logger = logging.getLogger(__name__)


class MultiServerMCPClient:
    """Tools (and prompts, resources) of several MCP servers for LangChain.

    `plugins`, `plugin_settings` and further keyword arguments (`timeout`,
    `on_server_error`, ...) go to the `MCPBridge` underneath; `plugins=None` loads the
    installed mcpbridge plugins, as `MCPBridge` does (`on_elicitation` adds its own, `Answering`).
    Without `timeout`, tool calls are bounded as the adapters bound them (`config`).
    """

    def __init__(
        self,
        connections: Mapping[str, Connection] | None = None,
        *,
        callbacks: Callbacks | None = None,
        tool_interceptors: Sequence[ToolCallInterceptor] | None = None,
        tool_name_prefix: bool = False,
        handle_tool_errors: bool = True,
        plugins: Sequence[object | str] | None = None,
        plugin_settings: Mapping[str, Mapping[str, Any]] | None = None,
        **options: Any,
    ) -> None:
        self.connections: dict[str, Connection] = dict(connections or {})
        self.callbacks = callbacks or Callbacks()
        self.tool_interceptors = list(tool_interceptors or [])
        self.tool_name_prefix = tool_name_prefix
        self.handle_tool_errors = handle_tool_errors
        self._shared = ClientBridge(self.connections, self.callbacks, plugins, plugin_settings, **options)
        self.bridge = self._shared.bridge

    async def __aenter__(self) -> MultiServerMCPClient:
        await self.bridge.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every session (and end stdio servers); the client may be used again."""
        await self.bridge.aclose()

    def _servers(self, server_name: str | None) -> list[ClientServer]:
        """The client's servers (or `server_name` alone); an unknown name is a ValueError."""
        return [self._shared.server(name) for name in (self.connections if server_name is None else [server_name])]

    async def get_tools(self, *, server_name: str | None = None) -> list[BaseTool]:
        """The tools of every server, or of `server_name`. Without `tool_name_prefix`, a name
        two servers offer appears twice (an agent keeps the last), with a warning."""
        listed = await asyncio.gather(
            *(
                load_mcp_tools(
                    server,
                    callbacks=self.callbacks,
                    tool_interceptors=self.tool_interceptors,
                    server_name=server.server_name,
                    tool_name_prefix=self.tool_name_prefix,
                    handle_tool_errors=self.handle_tool_errors,
                )
                for server in self._servers(server_name)
            )
        )
        tools = [tool for found in listed for tool in found]
        for name, count in Counter(tool.name for tool in tools).items():
            if count > 1:
                logger.warning(
                    "%d servers offer a tool named %r: an agent given all of them keeps the last; "
                    "set tool_name_prefix=True to tell them apart",
                    count,
                    name,
                )
        return tools

    @asynccontextmanager
    async def session(
        self, server_name: str, *, auto_initialize: bool = True
    ) -> AsyncIterator[SharedSession | ClientSession]:
        """The server's live, initialized mcp `ClientSession`, shared (it stays open after the
        block), as a `SharedSession`. `auto_initialize=False` gives a new session of its own
        instead, not initialized, closed when the block ends (for `load_mcp_server_info`)."""
        [server] = self._servers(server_name)
        if auto_initialize:
            session = SharedSession(await self.bridge.session(server_name), server)
            # What a legacy server asks `on_elicitation` during the block's own requests
            # counts against the block's budget (`Answering`).
            answering = self._shared.answering
            with answering.blocks.scope(server_name) if answering is not None else nullcontext():
                yield session
            return
        context = CallbackContext(server_name=server_name)
        async with create_session(
            self.connections[server_name], mcp_callbacks=self.callbacks.to_mcp_format(context=context)
        ) as own:
            yield own

    async def get_prompt(
        self, server_name: str, prompt_name: str, *, arguments: dict[str, Any] | None = None
    ) -> list[HumanMessage | AIMessage]:
        """A prompt of `server_name` as LangChain messages."""
        [server] = self._servers(server_name)
        return await load_mcp_prompt(server, prompt_name, arguments=arguments)

    async def get_resources(self, server_name: str | None = None, *, uris: str | list[str] | None = None) -> list[Blob]:
        """Resources as Blobs: of `server_name` (every server when None), `uris` or all listed."""
        found = await asyncio.gather(*(load_mcp_resources(server, uris=uris) for server in self._servers(server_name)))
        return [blob for blobs in found for blob in blobs]

    async def get_server_info(self, *, server_name: str | None = None) -> dict[str, LegacyInitializeResult]:
        """What each server (or `server_name`) said in its handshake, by server name; a
        RuntimeError names every server that could not be reached."""
        names = [server.server_name for server in self._servers(server_name)]

        async def read(session: ClientSession) -> LegacyInitializeResult:
            return session_result(session)

        found = await asyncio.gather(
            *(self.bridge.request(name, "server info", read) for name in names), return_exceptions=True
        )
        failed = {name: exc for name, exc in zip(names, found, strict=True) if isinstance(exc, BaseException)}
        if failed:
            detail = ", ".join(f"'{name}': {type(exc).__name__}: {exc}" for name, exc in failed.items())
            raise RuntimeError(
                f"Failed to retrieve server info from {len(failed)} of {len(names)} MCP server(s) - {detail}"
            ) from next(iter(failed.values()))
        return {name: info for name, info in zip(names, found, strict=True) if isinstance(info, LegacyInitializeResult)}
