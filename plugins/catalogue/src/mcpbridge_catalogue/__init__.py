"""mcpbridge-catalogue: what the model sees. A live, stable tool catalogue for LangChain
agents, ordered by server then tool, fitted to the provider and kept within a token budget.

    agent = create_agent(model, tools=[], middleware=[LiveCatalogue(bridge)])

    [plugins.catalogue]
    max_catalog_tokens = 8000
    always_on = [{server = "github", tool = "search_*"}]
    provider = "openai"
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, Plugin, StashKey, hookimpl, lazy_exports
from mcpbridge_catalogue.settings import CatalogueSettings

if TYPE_CHECKING:
    from mcp.types import Tool

    from mcpbridge_catalogue.middleware import CatalogueState, LiveCatalogue

# The middleware imports langchain: on first use only, so that loading the plugin stays cheap.
__getattr__ = lazy_exports(
    __name__, dict.fromkeys(("CatalogueState", "LiveCatalogue"), "mcpbridge_catalogue.middleware")
)

__all__ = ["CatalogueSettings", "CatalogueState", "LiveCatalogue"]

mcpbridge_plugin = Plugin(settings=CatalogueSettings)


class Listings:
    """Counts the bridge's listings (a review that changes nothing): a catalogue lists its
    tools again when the bridge did, whoever asked it to."""

    def __init__(self) -> None:
        self.count = 0

    async def review(self, server: str, tools: Sequence[Tool]) -> list[Tool]:
        self.count += 1
        return list(tools)

    def left_out(self, server: str, name: str) -> str | None:
        return None


LISTINGS = StashKey[Listings]()


@hookimpl
def mcpbridge_tool_review(context: BridgeContext) -> Listings:
    return context.stash.setdefault(LISTINGS, Listings())


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(CatalogueSettings)
    budget = f"at most {settings.max_catalog_tokens} tokens of tools" if settings.max_catalog_tokens else "no budget"
    fitted = f", schemas fitted to {settings.provider}" if settings.provider else ""
    return f"catalogue: {budget}{fitted}; agents get it with LiveCatalogue(bridge) in create_agent's middleware"
