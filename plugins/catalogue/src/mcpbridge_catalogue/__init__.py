"""mcpbridge-catalogue: what the model sees. A live, stable tool catalogue for LangChain
agents, ordered by server then tool, fitted to the provider and kept within a token budget.

    agent = create_agent(model, tools=[], middleware=[LiveCatalogue(bridge)])

    [plugins.catalogue]
    max_catalog_tokens = 8000
    always_on = [{server = "github", tool = "search_*"}]
    provider = "openai"
"""

from __future__ import annotations

from mcpbridge import BridgeContext, Plugin, hookimpl
from mcpbridge_catalogue.settings import CatalogueSettings

__all__ = ["CatalogueSettings"]

mcpbridge_plugin = Plugin(settings=CatalogueSettings)


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(CatalogueSettings)
    budget = f"{settings.max_catalog_tokens} tokens" if settings.max_catalog_tokens else "no token budget"
    fitted = f", schemas fitted to {settings.provider}" if settings.provider else ""
    return f"catalogue: {budget}{fitted} (LiveCatalogue(bridge) in create_agent's middleware)"
