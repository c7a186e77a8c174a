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

from mcpbridge import MCPBridge, MCPTool
from mcpbridge_adapters.answering import Answering
from mcpbridge_adapters.bridged import DropInLayer, bridged_tool
from mcpbridge_adapters.callbacks import CallbackContext, Callbacks
from mcpbridge_adapters.config import server_config
from mcpbridge_adapters.handles import SESSIONS, ClientServer
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
        on_elicitation = self.callbacks.on_elicitation
        self._answering: Answering | None = None
        if on_elicitation is not None:
            self._answering = Answering(on_elicitation, lambda server: self.bridge.calls_in_flight(server))
            plugins = [*(["*"] if plugins is None else plugins), self._answering]
        self.bridge = MCPBridge(
            {
                name: server_config(name, connection, call_timeouts="timeout" not in options)
                for name, connection in self.connections.items()
            },
            interceptors=[DropInLayer()],
            plugins=plugins,
            plugin_settings=plugin_settings,
            **options,
        )
        self._adapted: dict[tuple[Any, ...], tuple[MCPTool, BaseTool]] = {}

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

    def _known(self, server_name: str) -> None:
        if server_name not in self.connections:
            raise ValueError(
                f"Couldn't find a server with name '{server_name}', expected one of '{list(self.connections)}'"
            )

    async def get_tools(self, *, server_name: str | None = None) -> list[BaseTool]:
        """The tools of every server, or of `server_name`. Without `tool_name_prefix`, a name
        two servers offer appears twice (an agent keeps the last), with a warning."""
        if server_name is not None:
            self._known(server_name)
        names = list(self.connections) if server_name is None else [server_name]
        listed = await asyncio.gather(
            *(
                load_mcp_tools(
                    ClientServer(self, name),  # type: ignore[arg-type]
                    callbacks=self.callbacks,
                    tool_interceptors=self.tool_interceptors,
                    server_name=name,
                    tool_name_prefix=self.tool_name_prefix,
                    handle_tool_errors=self.handle_tool_errors,
                )
                for name in names
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

    async def bridged_tools(
        self,
        server_name: str,
        *,
        callbacks: Callbacks | None,
        tool_interceptors: Sequence[ToolCallInterceptor],
        prefix: str | None,
        handle_tool_errors: bool,
    ) -> list[BaseTool]:
        """The tools of `server_name` on its shared session (named `{prefix}_{tool}` with a
        prefix), built once per listing and settings."""
        self._known(server_name)
        if callbacks is not None and callbacks.on_elicitation not in (None, self.callbacks.on_elicitation):
            raise ValueError(
                "callbacks.on_elicitation: a shared session answers elicitation with the client's callbacks; "
                "pass it to MultiServerMCPClient(callbacks=Callbacks(on_elicitation=...))"
            )
        settings = (tuple(map(id, tool_interceptors)), id(callbacks), prefix, handle_tool_errors)
        tools = []
        for tool in await self.bridge.list_tools(servers=[server_name]):
            key = (id(tool), *settings)
            known = self._adapted.get(key)
            if known is None or known[0] is not tool:
                name = f"{prefix}_{tool.binding.tool.name}" if prefix else tool.binding.tool.name
                adapted = bridged_tool(
                    tool,
                    name=name,
                    interceptors=tuple(tool_interceptors),
                    callbacks=callbacks,
                    handle_tool_errors=handle_tool_errors,
                )
                known = self._adapted[key] = (tool, adapted)
            tools.append(known[1])
        return tools

    @asynccontextmanager
    async def session(self, server_name: str, *, auto_initialize: bool = True) -> AsyncIterator[ClientSession]:
        """The server's live, initialized mcp `ClientSession` (shared: it stays open after the
        block). `auto_initialize=False` gives a new session of its own instead, not
        initialized, closed when the block ends (for `load_mcp_server_info`)."""
        self._known(server_name)
        if auto_initialize:
            session = await self.bridge.session(server_name)
            SESSIONS[session] = ClientServer(self, server_name)
            # What a legacy server asks `on_elicitation` during the block's own requests
            # counts against the block's budget (`Answering`).
            with self._answering.blocks.scope(server_name) if self._answering else nullcontext():
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
        self._known(server_name)
        return await load_mcp_prompt(ClientServer(self, server_name), prompt_name, arguments=arguments)  # type: ignore[arg-type]

    async def get_resources(self, server_name: str | None = None, *, uris: str | list[str] | None = None) -> list[Blob]:
        """Resources as Blobs: of `server_name` (every server when None), `uris` or all listed."""
        names = list(self.connections) if server_name is None else [server_name]
        for name in names:
            self._known(name)
        found = await asyncio.gather(
            *(load_mcp_resources(ClientServer(self, name), uris=uris) for name in names)  # type: ignore[arg-type]
        )
        return [blob for blobs in found for blob in blobs]

    async def get_server_info(self, *, server_name: str | None = None) -> dict[str, LegacyInitializeResult]:
        """What each server (or `server_name`) said in its handshake, by server name; a
        RuntimeError names every server that could not be reached."""
        names = list(self.connections) if server_name is None else [server_name]
        for name in names:
            self._known(name)

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
