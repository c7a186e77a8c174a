"""MCPBridge: servers + plugins + interceptors → LangChain tools on persistent sessions."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, cast

from langchain_core.messages import ToolMessage
from mcp.client.session import ClientSession
from mcp.types import Tool

from mcpbridge._base.config import ServerConfig, Settings, load_settings
from mcpbridge._base.errors import ConfigError, install_log_redaction
from mcpbridge._base.pipeline import (
    ToolCallHandler,
    ToolCallInterceptor,
    ToolCallRequest,
    ToolListRequest,
    compose,
    compose_listing,
)
from mcpbridge._base.tool_errors import ServerConnectionError
from mcpbridge._facade.tool_names import ToolNames
from mcpbridge._platform.declaration import Layering, ToolLayers
from mcpbridge._platform.hookspecs import BridgeContext
from mcpbridge._platform.plugins import PluginHost
from mcpbridge._session.connections import Connection
from mcpbridge._session.listing import ServerInfo, server_info
from mcpbridge._session.loops import HomeLoop, paced
from mcpbridge._toolkit.claims import ClaimStore
from mcpbridge._tools.arguments import OutputChecks
from mcpbridge._tools.schemas import listed_schema
from mcpbridge._tools.tool import Definition, MCPTool, Relisting, ToolBinding

logger = logging.getLogger(__name__)
T = TypeVar("T")


class MCPBridge:
    """Connects to MCP servers and hands their tools to LangChain / LangGraph.

    Use `async with MCPBridge(...) as bridge: tools = await bridge.list_tools()` in async
    code, or `with MCPBridge(...) as bridge: tools = bridge.list_tools_sync()` in sync code
    (the bridge then runs its sessions on a loop thread of its own).
    """

    def __init__(
        self,
        servers: Mapping[str, Any] | None = None,
        *,
        interceptors: Sequence[ToolCallInterceptor] = (),
        plugins: Sequence[object | str] | None = None,
        settings: Settings | None = None,
        tool_name_prefix: bool | None = None,
        timeout: float | None = None,
        on_server_error: Literal["raise", "skip"] | None = None,
        handle_transport_errors: bool | None = None,
        handle_tool_errors: bool | None = None,
        plugin_settings: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.settings = (settings if settings is not None else Settings()).with_overrides(
            servers=servers,
            tool_name_prefix=tool_name_prefix,
            timeout=timeout,
            on_server_error=on_server_error,
            handle_transport_errors=handle_transport_errors,
            handle_tool_errors=handle_tool_errors,
            plugin_settings=plugin_settings,
        )
        install_log_redaction(self.settings.secret_values())
        self._host = PluginHost(self.settings, plugins, interceptors)
        self._host.configure()
        self.claims: ClaimStore = self._host.claim_store()
        """Where resumed calls are claimed, so that one worker runs each (the claiming layer)."""
        self._interceptors = tuple(self._host.interceptors())
        self._schema_bounds = self.settings.schema_bounds()
        self._connections = {
            name: self._connection_to(name, server, self._host.client_options(name, server))
            for name, server in self.settings.servers.items()
        }
        self._home = HomeLoop()
        self._tools: dict[Connection, Shelf] = {c: self._shelf(name, c) for name, c in self._connections.items()}
        """Per session (a server's own, or one of a credential it was listed with), the tool
        built for each definition its last listing offered; no other is kept."""
        self._list_interceptors = self._host.list_interceptors()
        self._handlers: dict[tuple[str, Layering], ToolCallHandler] = {}
        self._layers = ToolLayers(self._host.contributed, self._host.order)
        self._unanswered = self._host.unanswered  # one bound method for every tool
        self._host.observe()
        self._reviews = self._host.tool_reviews()
        self._names = ToolNames(tuple(self._connections), prefix=self.settings.tool_name_prefix)

    def _connection_to(
        self, name: str, server: ServerConfig, options: Mapping[str, Any], *, spawned: bool = False
    ) -> Connection:
        """The connection to `server`; it spawns one per credential that calls carry (`for_credential`)."""
        return Connection(
            name,
            server,
            timeout=self.settings.server_timeout(name),
            client_options=options,
            max_result_bytes=self.settings.server_max_result_bytes(name),
            max_argument_bytes=self.settings.server_max_argument_bytes(name),
            unanswered=self._host.unanswered,
            check_output=OutputChecks(name, self._schema_bounds, self.settings.max_argument_depth),
            spawn=None if spawned else lambda config: self._connection_to(name, config, options, spawned=True),
        )

    @property
    def interceptors(self) -> tuple[ToolCallInterceptor, ...]:
        """The interceptor chain, outermost first, the core's claiming layer last; fixed when
        the bridge is built."""
        return self._interceptors

    @property
    def context(self) -> BridgeContext:
        """What this bridge's hooks get as `context`: its `stash` holds the plugins' state and
        `settings_of(model)` their tables, for a plugin's own functions that take the bridge."""
        return self._host.context

    @property
    def chain(self) -> tuple[str, ...]:
        """Every layer a call may pass through, outermost first, as `mcpbridge plugins` shows
        them: the enabled plugins' names in chain order (`DIRECT`, `"interceptors"`, for
        `MCPBridge(interceptors=...)`), then the core's own `"claiming"` layer, innermost (a
        call resumed from an interrupt claims its execution there, once, before it is sent).
        One tool's calls pass only the layers with work for it: `tool.chain`."""
        return self._host.context.chain

    @property
    def servers(self) -> tuple[str, ...]:
        """The configured servers' names, in config order."""
        return tuple(self._connections)

    @classmethod
    def from_config(cls, path: str | os.PathLike[str] | None = None, **overrides: Any) -> MCPBridge:
        """A bridge built from `mcpbridge.toml` (or a pyproject's `[tool.mcpbridge]`)."""
        return cls(settings=load_settings(path), **overrides)

    # -- lifetime ------------------------------------------------------------------

    async def __aenter__(self) -> MCPBridge:
        self._home.bind_here()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __enter__(self) -> MCPBridge:
        self._home.start_thread()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def aclose(self) -> None:
        """Close every session (and end stdio subprocesses), then let plugins release what
        they hold (`mcpbridge_teardown`); the bridge may be opened again."""
        if self._home.loop is None:
            await self._close_all()
        else:
            await self._home.submit(self._close_all())

    def close(self) -> None:
        """Sync `aclose()`; also stops the bridge's own loop thread."""
        if self._home.loop is not None:
            self._home.run_sync(self._close_all())
        self._home.stop_thread()

    async def _close_all(self) -> None:
        await asyncio.gather(*(c.aclose() for c in self._connections.values()))
        await self._host.teardown()

    # -- tools ---------------------------------------------------------------------

    async def list_tools(
        self, *, refresh: bool = False, servers: Sequence[str] | None = None, runtime: Any = None
    ) -> list[MCPTool]:
        """LangChain tools for every server (or `servers`), listed concurrently. With the
        `runtime` of a run (a `ToolRuntime`), listed for that run: one server after another,
        each through the list interceptors (`mcpbridge_list_interceptors`), which may list as
        the run's person or pause the run (docs/hooks.md)."""
        return await self._home.submit(self._list_tools(refresh, servers, runtime))

    def list_tools_sync(
        self, *, refresh: bool = False, servers: Sequence[str] | None = None, runtime: Any = None
    ) -> list[MCPTool]:
        """`list_tools()` for sync code (open the bridge with `with MCPBridge(...)`)."""
        return self._home.run_sync(self._list_tools(refresh, servers, runtime))

    @property
    def lists_per_run(self) -> bool:
        """Whether a listing may differ from one run to another: a plugin sees each listing
        made for a run (`mcpbridge_list_interceptors`), so a run's tools are its own."""
        return bool(self._list_interceptors)

    async def call_tool(
        self,
        server: str,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        tool_call_id: str = "mcpbridge-call",
    ) -> ToolMessage:
        """Call one tool by server and MCP tool name, as an agent would; returns the ToolMessage."""
        tools = await self.list_tools(servers=[server])
        for tool in tools:
            if tool.binding.tool.name == name:
                call = {"type": "tool_call", "name": tool.name, "args": dict(arguments or {}), "id": tool_call_id}
                return cast(ToolMessage, await tool.ainvoke(call))
        known = ", ".join(sorted(t.binding.tool.name for t in tools)) or "none"
        raise ConfigError(self._left_out(server, name) or f"server {server!r} has no tool {name!r}; its tools: {known}")

    def _left_out(self, server: str, name: str) -> str | None:
        """Why a tool review left `server`'s tool `name` out, if one did."""
        return next(filter(None, (review.left_out(server, name) for review in self._reviews)), None)

    async def _list_tools(self, refresh: bool, servers: Sequence[str] | None, runtime: Any) -> list[MCPTool]:
        if servers is None:
            self.settings.require_servers()
        names = list(servers) if servers is not None else list(self._connections)
        for name in names:  # an unknown name fails before any listing
            self._connection(name)
        listed: list[list[MCPTool] | BaseException]
        if runtime is None:
            listed = await asyncio.gather(*(self._listed(n, None, refresh) for n in names), return_exceptions=True)
        else:  # one by one: the run's pauses come in the same order when it resumes
            listed = [await _settled(self._listed(name, runtime, refresh)) for name in names]
        tools: list[MCPTool] = []
        for name, result in zip(names, listed, strict=True):
            if isinstance(result, ServerConnectionError | ConfigError) and self.settings.on_server_error == "skip":
                logger.warning("mcpbridge: leaving out the tools of server %r: %s", name, result)
                continue
            if isinstance(result, BaseException):
                raise result
            tools += result
        return await self._names.resolve(tools)

    async def _listed(self, server: str, runtime: Any, refresh: bool) -> list[MCPTool]:
        """`server`'s tools through the list interceptors, from the session they list with."""
        connection = self._connections[server]
        used = [connection]

        async def terminal(request: ToolListRequest) -> list[Tool]:
            credential = {"Authorization": request.authorization} if request.authorization else None
            used[0] = connection.for_credential(credential) or connection
            return await used[0].list_tools(refresh=refresh)

        listed = await compose_listing(self._list_interceptors, terminal)(ToolListRequest(server, runtime))
        if (shelf := self._tools.get(used[0])) is None:
            shelf = self._tools[used[0]] = self._shelf(server, used[0])
        for closed in [c for c in self._tools if c.name == server and c.audience and not connection.holds(c)]:
            del self._tools[closed]  # a credential's session closed: its tools are no longer kept
        return await self._offer(shelf, listed)

    async def _offer(self, shelf: Shelf, listed: Sequence[Tool]) -> list[MCPTool]:
        """The tools of `listed` the reviews offer, built once per definition, and every tool of
        `shelf` built before whose definition the listing no longer offers marked withdrawn."""
        name = shelf.server
        for review in self._reviews:
            listed = await review.review(name, listed)
        offered: dict[str, tuple[Tool, MCPTool | None]] = {}
        tools: list[MCPTool] = []
        async for mcp_tool in paced(listed):
            tool = self._tool(shelf, mcp_tool)
            offered[mcp_tool.name] = shelf.built[mcp_tool.name]
            if tool is not None:
                tools.append(tool)
        # the latest listing's tools alone are kept: a call through one it no longer offers is refused
        for gone, (_, tool) in shelf.built.items():
            if tool is not None and gone not in offered:
                tool.binding.definition.withdrawn = self._left_out(name, gone) or "the server no longer lists it"
        shelf.built = offered
        return tools

    # -- beyond tools: server info, any other request ---------------------------------

    async def session(self, server: str) -> ClientSession:
        """The live, initialized mcp `ClientSession` of `server` (opened if needed, and shared:
        it stays open until the bridge closes), for requests the bridge has no method for.
        Use it on the bridge's loop (in `async with MCPBridge(...)`), or send with `request`."""
        return await self._home.submit(self._connection(server).session())

    async def request(self, server: str, what: str, send: Callable[[ClientSession], Awaitable[T]]) -> T:
        """`await send(session)` on `server`'s session, on the bridge's loop from any loop or
        thread, for a request that is not a tool call (`session.read_resource(uri)`, say): an
        error answer raises `ServerRequestError` naming `what` (`"resources/read of 'a://b'"`),
        an unreachable server `ServerConnectionError`; a session the server forgot (it
        restarted) is opened again and `send` called once more (the server never ran it)."""
        return await self._home.submit(self._connection(server).request(what, send))

    async def server_info(self, server: str) -> ServerInfo:
        """What `server` says about itself (name, version, title, `instructions` for a system
        prompt), opening its session if needed."""
        return server_info(server, await self.session(server))

    def calls_in_flight(self, server: str) -> tuple[ToolCallRequest, ...]:
        """The tool calls on `server` that have been sent and not yet answered, e.g. for a
        client callback (elicitation, sampling) that wants to know which call it serves."""
        return self._connection(server).calls_in_flight

    def _connection(self, server: str) -> Connection:
        if (connection := self._connections.get(server)) is None:
            raise ConfigError.unknown_server(server, self.servers)
        return connection

    def _tool(self, shelf: Shelf, mcp_tool: Tool) -> MCPTool | None:
        """The LangChain tool for `mcp_tool`, built (and its chain composed) once per
        definition; None for a tool whose input schema costs more than the settings allow
        (left out, with one warning)."""
        server, built = shelf.server, shelf.built
        cached = built.get(mcp_tool.name)
        if cached is not None and (cached[0] is mcp_tool or cached[0] == mcp_tool):
            return cached[1]
        if cached is not None and cached[1] is not None:
            cached[1].binding.definition.withdrawn = "the server changed its definition since"
        schema = listed_schema(mcp_tool.input_schema, self._schema_bounds, server=server, tool=mcp_tool.name)
        if schema is None:
            built[mcp_tool.name] = (mcp_tool, None)
            return None
        layering = self._layers.of(server, mcp_tool)
        binding = ToolBinding(
            server_name=server,
            tool=mcp_tool,
            definition=Definition(),
            relisting=shelf.relisting,
            handler=self._handler(server, layering),
            chain=layering.chain,
            schema=schema,
            handle_transport_errors=self.settings.server_handle_transport_errors(server),
            max_argument_bytes=self.settings.server_max_argument_bytes(server),
            max_argument_depth=self.settings.max_argument_depth,
            home=self._home,
            unanswered=self._unanswered,
            audience=shelf.audience,
        )
        name = self._names.display(server, mcp_tool.name)
        tool = MCPTool.create(binding, name=name, handle_tool_error=self.settings.handle_tool_errors)
        built[mcp_tool.name] = (mcp_tool, tool)
        return tool

    def _shelf(self, server: str, connection: Connection) -> Shelf:
        """Where the tools of `connection`'s listings are kept, and how its tool objects list
        again after the server announced a change, or after the session was opened again (a
        restarted server may offer other tools): a credential's session is listed as it is."""

        async def listed_again() -> list[MCPTool]:
            return await self._offer(shelf, await connection.list_tools())

        async def relist() -> list[MCPTool]:
            if connection.audience is None:
                return await self.list_tools(servers=[server])
            return await self._home.submit(listed_again())

        def announced() -> bool:
            return connection.tools_stale or connection.tools_unseen

        shelf = Shelf(server, connection.audience, Relisting(announced, relist))
        return shelf

    def _handler(self, server: str, layering: Layering) -> ToolCallHandler:
        """`layering`'s interceptors around `server`'s session, composed once for every tool of
        that server whose chain they are."""
        key = (server, layering)
        if (handler := self._handlers.get(key)) is None:
            terminal = self._connections[server].call_tool
            handler = self._handlers[key] = compose(layering.interceptors, terminal)
        return handler


async def _settled(listing: Awaitable[list[MCPTool]]) -> list[MCPTool] | BaseException:
    """What `listing` gives, or the error `on_server_error` decides about."""
    try:
        return await listing
    except (ServerConnectionError, ConfigError) as exc:
        return exc


@dataclass(slots=True, eq=False)
class Shelf:
    """The tools built from one session's listings: a server's own, or a credential's."""

    server: str
    audience: str | None
    """The session's credential digest (`Connection.audience`), which its tools carry."""
    relisting: Relisting
    built: dict[str, tuple[Tool, MCPTool | None]] = field(default_factory=dict)
    """The tool built for each definition the last listing offered (None: left out, its input
    schema over the bounds); no other is kept."""
