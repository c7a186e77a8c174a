"""`MultiServerMCPClient` with langchain-mcp-adapters' constructor and methods, on an
`MCPBridge`: sessions open on first use and stay open (close them with `await
client.aclose()` or `async with client:`), mcpbridge plugins run on every call."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any

import mcpbridge_resources
from langchain_core.documents.base import Blob
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import BaseTool
from mcp import ClientSession

from mcpbridge import MCPBridge, MCPTool, ServerInfo
from mcpbridge_adapters.answering import Answering
from mcpbridge_adapters.callbacks import Callbacks
from mcpbridge_adapters.interceptors import ToolCallInterceptor, speaking_legacy
from mcpbridge_adapters.sessions import (
    Connection,
    SSEConnection,
    StdioConnection,
    StreamableHttpConnection,
    WebsocketConnection,
    server_config,
)
from mcpbridge_adapters.tools import SESSIONS, adapt

__all__ = [
    "Callbacks",
    "MultiServerMCPClient",
    "SSEConnection",
    "StdioConnection",
    "StreamableHttpConnection",
    "WebsocketConnection",
]


class MultiServerMCPClient:
    """Tools (and prompts, resources) of several MCP servers for LangChain.

    `plugins`, `plugin_settings` and further keyword arguments (`timeout`,
    `on_server_error`, ...) go to the `MCPBridge` underneath; `plugins=None` loads the
    installed mcpbridge plugins, as `MCPBridge` does (`on_elicitation` adds its own, `Answering`).
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
        listening, on_elicitation = self.callbacks.interceptor(), self.callbacks.on_elicitation
        if on_elicitation is not None:
            answering = Answering(on_elicitation, lambda server: self.bridge.calls_in_flight(server))
            plugins = [*(["*"] if plugins is None else plugins), answering]
        self.bridge = MCPBridge(
            {name: server_config(name, connection) for name, connection in self.connections.items()},
            interceptors=[*([listening] if listening else []), *map(speaking_legacy, self.tool_interceptors)],
            plugins=plugins,
            tool_name_prefix=tool_name_prefix,
            plugin_settings=plugin_settings,
            **options,
        )
        self._adapted: dict[int, tuple[MCPTool, BaseTool]] = {}

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
        """The tools of every server, or of `server_name`."""
        if server_name is not None:
            self._known(server_name)
        tools = await self.bridge.list_tools(servers=None if server_name is None else [server_name])
        return [self._adapt(tool) for tool in tools]

    def _adapt(self, tool: MCPTool) -> BaseTool:
        known = self._adapted.get(id(tool))
        if known is None or known[0] is not tool:
            known = (tool, adapt(tool, handle_tool_errors=self.handle_tool_errors))
            self._adapted[id(tool)] = known
        return known[1]

    @asynccontextmanager
    async def session(self, server_name: str, *, auto_initialize: bool = True) -> AsyncIterator[ClientSession]:
        """The server's live, initialized mcp `ClientSession` (shared: it stays open after
        the block; `auto_initialize` is accepted and has nothing to do)."""
        self._known(server_name)
        session = await self.bridge.session(server_name)
        SESSIONS[session] = (self, server_name)
        yield session

    async def get_prompt(
        self, server_name: str, prompt_name: str, *, arguments: dict[str, Any] | None = None
    ) -> list[HumanMessage | AIMessage]:
        """A prompt of `server_name` as LangChain messages."""
        self._known(server_name)
        return await mcpbridge_resources.get_prompt(self.bridge, server_name, prompt_name, arguments)

    async def get_resources(self, server_name: str | None = None, *, uris: str | list[str] | None = None) -> list[Blob]:
        """Resources as Blobs: of `server_name` (every server when None), `uris` or all listed."""
        names = list(self.connections) if server_name is None else [server_name]
        for name in names:
            self._known(name)
        found = await asyncio.gather(*(mcpbridge_resources.get_resources(self.bridge, name, uris) for name in names))
        return [blob for blobs in found for blob in blobs]

    async def get_server_info(self, *, server_name: str | None = None) -> dict[str, ServerInfo]:
        """What each server (or `server_name`) says about itself, by server name; a
        RuntimeError names every server that could not be reached."""
        names = list(self.connections) if server_name is None else [server_name]
        for name in names:
            self._known(name)
        found = await asyncio.gather(*(self.bridge.server_info(name) for name in names), return_exceptions=True)
        failed = {name: exc for name, exc in zip(names, found, strict=True) if isinstance(exc, BaseException)}
        if failed:
            detail = ", ".join(f"'{name}': {type(exc).__name__}: {exc}" for name, exc in failed.items())
            raise RuntimeError(
                f"Failed to retrieve server info from {len(failed)} of {len(names)} MCP server(s) - {detail}"
            ) from next(iter(failed.values()))
        return {name: info for name, info in zip(names, found, strict=True) if isinstance(info, ServerInfo)}
