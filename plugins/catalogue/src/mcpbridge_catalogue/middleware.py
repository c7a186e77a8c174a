"""`LiveCatalogue`: LangChain agent middleware that gives each model call the bridge's tools
as they are now, and runs the tools the agent was not built with."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, Final, NotRequired, cast

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain.agents.middleware.types import ExtendedModelResponse, ToolCallRequest
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.config import get_config
from langgraph.types import Command
from pydantic import ValidationError

from mcpbridge import ConfigError, MCPBridge, PluginError, ToolSelector, validation_problems
from mcpbridge_catalogue import LISTINGS
from mcpbridge_catalogue.catalogue import FIND_TOOLS, Catalogue, Listing
from mcpbridge_catalogue.fixes import Provider
from mcpbridge_catalogue.settings import CatalogueSettings

FOUND: Final = "catalogue_found"
MAX_FOUND: Final = 100
"""Found tools kept in a run's state (the latest); the budget binds what fits of them."""
_NAME_SHOWN: Final = 100
"""Characters of a model-sent name or query quoted back to it."""


def _found(kept: list[str] | None, new: list[str] | None) -> list[str]:
    """The found tools' names, oldest first, each once, the latest `MAX_FOUND`."""
    latest = list(dict.fromkeys(new or ()))
    return ([name for name in kept or () if name not in latest] + latest)[-MAX_FOUND:]


class CatalogueState(AgentState[Any]):
    """The agent state the catalogue adds: what `find_tools` found in this thread."""

    catalogue_found: NotRequired[Annotated[list[str], _found]]


class LiveCatalogue(AgentMiddleware[CatalogueState, Any, Any]):
    """`create_agent(model, tools=[], middleware=[LiveCatalogue(bridge)])`: every model call
    is given `bridge`'s tools as listed now (a server's `tools/list_changed` is seen at the
    next model call), ordered by server then MCP name, within `max_catalog_tokens`.

    The arguments override `[plugins.catalogue]` for this agent; `servers` limits the tools
    to those servers. The bridge needs the catalogue plugin (installed, or `plugins=[...,
    "catalogue"]`)."""

    state_schema = CatalogueState

    def __init__(
        self,
        bridge: MCPBridge,
        *,
        servers: Sequence[str] | None = None,
        max_catalog_tokens: int | None = None,
        always_on: Sequence[ToolSelector] | None = None,
        provider: Provider | None = None,
        find_limit: int | None = None,
    ) -> None:
        super().__init__()
        try:
            base, listings = bridge.context.settings_of(CatalogueSettings), bridge.context.stash[LISTINGS]
        except (PluginError, KeyError):
            raise PluginError(
                "LiveCatalogue needs the catalogue plugin in its bridge: MCPBridge(..., plugins=[..., 'catalogue']), "
                "or enable it in [plugins] (it may be disabled or missing from `enabled`)"
            ) from None
        given = dict(
            max_catalog_tokens=max_catalog_tokens, always_on=always_on, provider=provider, find_limit=find_limit
        )
        try:
            settings = CatalogueSettings.model_validate(
                {**dict(base), **{key: value for key, value in given.items() if value is not None}}
            )
        except ValidationError as exc:
            problems = "; ".join(f"{key}: {message}" for key, message in validation_problems(exc))
            raise ConfigError(f"LiveCatalogue: {problems}") from None
        for server in servers or ():
            if server not in bridge.servers:
                raise ConfigError.unknown_server(server, bridge.servers)
        self.catalogue = Catalogue(bridge, settings, servers, listings)

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        return handler(self._given(request, self.catalogue.current_sync(self._runtime(request))))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        return await handler(self._given(request, await self.catalogue.current(self._runtime(request))))

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]]
    ) -> ToolMessage | Command[Any]:
        if request.tool is not None:  # one the agent was built with
            return handler(request)
        answer = self._answer(request, self.catalogue.current_sync(request.runtime))
        return handler(answer) if isinstance(answer, ToolCallRequest) else answer

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        if request.tool is not None:
            return await handler(request)
        answer = self._answer(request, await self.catalogue.current(request.runtime))
        return await handler(answer) if isinstance(answer, ToolCallRequest) else answer

    def _runtime(self, request: ModelRequest[Any]) -> ToolRuntime[Any, Any] | None:
        """The run as its tool calls see it (`context`, `state`, `config`), for a bridge whose
        listings are made per run (`bridge.lists_per_run`: a person's tools are their own)."""
        if not self.catalogue.per_run:
            return None
        runtime = request.runtime
        return ToolRuntime(
            state=request.state,
            context=runtime.context,
            config=get_config(),
            stream_writer=runtime.stream_writer,
            tool_call_id=None,
            store=runtime.store,
        )

    def _given(self, request: ModelRequest[Any], listing: Listing) -> ModelRequest[Any]:
        """`request` with the catalogue's tools after the agent's own."""
        found = cast(list[str], request.state.get(FOUND) or [])
        return request.override(tools=[*request.tools, *self.catalogue.offered(listing, found)])

    def _answer(self, request: ToolCallRequest, listing: Listing) -> ToolCallRequest | ToolMessage | Command[Any]:
        """`request` with the tool `listing` offers under the called name, to run; or the answer
        itself: what `find_tools` found, or why the name is not offered."""
        call = request.tool_call
        name = call["name"]
        tool = self.catalogue.tool(listing, name)
        if name == FIND_TOOLS and (tool is None or self.catalogue.over_budget(listing)):
            return self._find(listing, call["args"].get("query"), call["id"])
        if tool is not None:
            return request.override(tool=tool)
        shown = name[:_NAME_SHOWN]
        if (why := listing.withdrawn(name)) is not None:
            problem = f"{shown!r} is no longer offered ({why}); call one of the tools you are given now"
        else:
            hint = " (find_tools looks for one)" if self.catalogue.settings.max_catalog_tokens else ""
            problem = f"{shown!r} is not a tool offered to this agent{hint}"
        return ToolMessage(f"Error: {problem}.", name=shown, tool_call_id=call["id"], status="error")

    def _find(self, listing: Listing, query: object, call_id: str | None) -> ToolMessage | Command[Any]:
        if not isinstance(query, str) or not query.strip():
            text = "Error: find_tools needs a `query`: words for what the tool you need does."
            return ToolMessage(text, name=FIND_TOOLS, tool_call_id=call_id, status="error")
        tools = listing.search(query, self.catalogue.settings.find_limit)
        if not tools:
            text = f"No tool matches {query[:_NAME_SHOWN]!r}: try other words."
            return ToolMessage(text, name=FIND_TOOLS, tool_call_id=call_id)
        lines = [f"- {tool.name}: {' '.join(tool.description.split())[:200]}" for tool in tools]
        text = "\n".join(["These tools can be called from your next step on:", *lines])
        message = ToolMessage(text, name=FIND_TOOLS, tool_call_id=call_id)
        # The best match last: the latest found are bound first when they do not all fit.
        return Command(update={FOUND: [tool.name for tool in reversed(tools)], "messages": [message]})
