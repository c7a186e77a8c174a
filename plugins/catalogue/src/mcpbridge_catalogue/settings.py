"""`[plugins.catalogue]`: the budget, the always-on tools and the provider to fit schemas to."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from mcpbridge import ToolSelector
from mcpbridge_catalogue.fixes import Provider


class CatalogueSettings(BaseModel):
    """Validated once when a bridge is built; `LiveCatalogue(...)` arguments override it per agent."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    max_catalog_tokens: int = Field(default=0, ge=0)
    """The most tokens (estimated as ceil(len(JSON of the tool as bound) / 4)) the tools
    given to the model may take; past it the model gets `always_on` and `find_tools`. 0: no cap."""
    always_on: tuple[ToolSelector, ...] = ()
    """Tools always given to the model, within the budget or not."""
    provider: Provider | None = None
    """Fit each tool's schema to what this provider accepts (only what the model is given)."""
    find_limit: int = Field(default=5, ge=1, le=50)
    """How many tools one `find_tools` call returns and binds at most."""
