"""The core's own layers, registered as plugins at their places in the chain (as datasette
registers its default plugins): `MCPBridge(interceptors=...)` and the claiming layer."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING

from mcpbridge._platform.declaration import Plugin
from mcpbridge._platform.hookspecs import hookimpl
from mcpbridge._toolkit.claims import CLAIMING, LOCAL_CLAIMS, ClaimStore, claiming

if TYPE_CHECKING:
    from mcpbridge._base.pipeline import ToolCallInterceptor  # imports mcp: `mcpbridge plugins` stays quick

DIRECT = "interceptors"
"""The plugin name of `MCPBridge(interceptors=[...])` in the chain and in `[plugins] order`."""


class Direct:
    """`MCPBridge(interceptors=[...])`, at position 100 unless `[plugins] order` moves them."""

    mcpbridge_name = DIRECT
    mcpbridge_plugin = Plugin(position=100)

    def __init__(self, interceptors: Sequence[ToolCallInterceptor]) -> None:
        self.interceptors = list(interceptors)

    @hookimpl
    def mcpbridge_interceptors(self) -> list[ToolCallInterceptor]:
        return self.interceptors


class Claiming:
    """The claiming layer, innermost (the host pins it there), in the store a plugin provides
    (`mcpbridge_claim_store`) or else in this process; the store is closed with the bridge."""

    mcpbridge_name = CLAIMING

    def __init__(self) -> None:
        self.store: ClaimStore = LOCAL_CLAIMS

    @hookimpl
    def mcpbridge_interceptors(self) -> list[ToolCallInterceptor]:
        return [claiming(self.store)]

    @hookimpl
    def mcpbridge_teardown(self) -> Awaitable[None]:
        return self.store.aclose()
