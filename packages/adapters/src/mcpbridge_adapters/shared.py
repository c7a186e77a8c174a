"""The shared sessions of a `MultiServerMCPClient`: the `MCPBridge` underneath, its servers,
and the sessions `client.session(name)` hands out.

The drop-in's loaders (`load_mcp_tools`, `load_mcp_prompt`, ...) given a `ClientServer` or
a `SharedSession` go through the bridge (its plugins, its reconnection); any other session
is used as it is, as the adapters use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import BaseTool
from mcp import ClientSession
from mcp.types import PaginatedRequestParams

from mcpbridge import MCPBridge, MCPTool
from mcpbridge_adapters.answering import Answering
from mcpbridge_adapters.bridged import bridged_tool, drop_in_layer
from mcpbridge_adapters.callbacks import Callbacks
from mcpbridge_adapters.config import server_config
from mcpbridge_adapters.convert import field


class ClientBridge:
    """The `MCPBridge` of a client: a server per connection dict, the client's layer
    (`drop_in_layer`) and, with `on_elicitation`, the client's own plugin (`Answering`);
    the adapters' tools over its sessions, built once per listing and settings."""

    def __init__(
        self,
        connections: Mapping[str, Any],
        callbacks: Callbacks,
        plugins: Sequence[object | str] | None = None,
        plugin_settings: Mapping[str, Mapping[str, Any]] | None = None,
        **options: Any,
    ) -> None:
        self.connections = dict(connections)
        self.callbacks = callbacks
        self.answering: Answering | None = None
        if callbacks.on_elicitation is not None:
            self.answering = Answering(callbacks.on_elicitation, lambda server: self.bridge.calls_in_flight(server))
            plugins = [*(["*"] if plugins is None else plugins), self.answering]
        self.bridge = MCPBridge(
            {
                name: server_config(name, connection, call_timeouts="timeout" not in options)
                for name, connection in self.connections.items()
            },
            interceptors=[drop_in_layer],
            plugins=plugins,
            plugin_settings=plugin_settings,
            **options,
        )
        self._adapted: dict[tuple[Any, ...], tuple[MCPTool, BaseTool]] = {}

    def server(self, name: str) -> ClientServer:
        if name not in self.connections:
            raise ValueError(f"Couldn't find a server with name '{name}', expected one of '{list(self.connections)}'")
        return ClientServer(self, name)

    async def tools(
        self,
        server_name: str,
        *,
        callbacks: Callbacks | None,
        tool_interceptors: Sequence[Any],
        prefix: str | None,
        handle_tool_errors: bool,
    ) -> list[BaseTool]:
        """The tools of `server_name` (named `{prefix}_{tool}` with a prefix)."""
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


@dataclass(frozen=True)
class ClientServer:
    """One server of a client, reached through its bridge (from any loop or thread; an error
    answer raises mcpbridge's `ServerRequestError`): the requests the loaders send."""

    client: ClientBridge
    server_name: str

    async def list_resources(self, *, params: PaginatedRequestParams | None = None) -> Any:
        return await self._request("resources/list", lambda s: s.list_resources(params=params))

    async def read_resource(self, uri: str) -> Any:
        return await self._request(f"resources/read of {uri!r}", lambda s: s.read_resource(uri))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> Any:
        return await self._request(f"tools/call of {name!r}", lambda s: s.call_tool(name, arguments, **options))

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return await self._request(f"prompts/get of {name!r}", lambda s: s.get_prompt(name, arguments))

    async def _request(self, what: str, send: Any) -> Any:
        return await self.client.bridge.request(self.server_name, what, send)


@dataclass(frozen=True)
class SharedSession:
    """What `client.session(name)` yields: the server's live, initialized mcp `ClientSession`
    (every attribute is that session's, shared by the client's tools), and the server it
    belongs to, through which the loaders given it go."""

    session: ClientSession
    server: ClientServer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)


Session = ClientSession | SharedSession | ClientServer
"""What the loaders take: a session you opened, or one of a client's."""


def client_server(session: object) -> ClientServer | None:
    """The client's server behind `session`, when it is one of a client's."""
    if isinstance(session, SharedSession):
        return session.server
    return session if isinstance(session, ClientServer) else None


def requests_to(session: Any) -> Any:
    """Where a loader sends its requests: through the bridge for a client's session, else to
    `session` itself."""
    return client_server(session) or session


async def list_pages(session: Any, method: str, items: str) -> list[Any]:
    """Every page of a list request (`list_tools`, `list_resources`), following cursors; the
    first page is asked for without arguments, as any session-like object accepts."""
    found: list[Any] = []
    page = await getattr(session, method)()
    for _ in range(1000):
        found.extend(getattr(page, items) or [])
        cursor = field(page, "next_cursor", "nextCursor")
        if not cursor:
            return found
        page = await getattr(session, method)(params=PaginatedRequestParams(cursor=cursor))
    raise RuntimeError(f"Reached max of 1000 iterations while listing ({method}).")
