"""mcpbridge-roots: tell MCP servers the client's roots, the `file://` locations they may
work in, and tell them again when the roots change.

    [plugins.roots]
    servers = { fs = ["file:///srv/project"] }

    await mcpbridge_roots.set_roots(bridge, "fs", ["file:///srv/other"])

Legacy servers ask with `roots/list` and hear `notifications/roots/list_changed`; modern ones
ask within a tool call, in a round this plugin answers next to the server. Only the servers
listed are told the client has roots.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from mcpbridge import (
    DIRECT,
    BridgeContext,
    ConfigError,
    Plugin,
    PluginError,
    StashKey,
    hookimpl,
    lazy_exports,
    validation_problems,
)
from mcpbridge_roots.settings import RootConfig, RootsSettings

if TYPE_CHECKING:
    from mcp.types import Root

    from mcpbridge import MCPBridge
    from mcpbridge_roots.answering import RootsInterceptor, ServerRoots

# The answering side imports mcp: on first use only, so that loading the plugin stays cheap.
__getattr__ = lazy_exports(__name__, {"RootsInterceptor": "mcpbridge_roots.answering"})

__all__ = ["RootConfig", "RootsInterceptor", "RootsSettings", "roots_of", "set_roots"]

mcpbridge_plugin = Plugin(
    settings=RootsSettings,
    position=95,
    after=(DIRECT,),
    before=("cache",),
    answers=("roots",),
    advice="list the server in `servers` of [plugins.roots]",
)
"""Next to the server, as a client answers roots by itself: inside every plugin and
`MCPBridge(interceptors=...)`, outside only the cache, which must be innermost."""

ROOTS = StashKey["dict[str, ServerRoots]"]()


def _roots(context: BridgeContext) -> dict[str, ServerRoots]:
    """This bridge's roots by server, shared by its interceptor and its client callbacks."""
    if ROOTS not in context.stash:
        from mcpbridge_roots.answering import ServerRoots

        servers = context.settings_of(RootsSettings).servers
        context.stash[ROOTS] = {server: ServerRoots(roots) for server, roots in servers.items()}
    return context.stash[ROOTS]


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[RootsInterceptor]:
    from mcpbridge_roots.answering import RootsInterceptor

    return [RootsInterceptor(_roots(context))] if context.settings_of(RootsSettings).servers else []


@hookimpl
def mcpbridge_client_options(server_name: str, context: BridgeContext) -> Mapping[str, Any] | None:
    roots = _roots(context).get(server_name)
    return {"list_roots_callback": roots.list_roots} if roots is not None else None


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(RootsSettings)
    if not settings.servers:
        return "tells no server of roots: list servers in `servers` of [plugins.roots]"
    return "tells roots to " + ", ".join(f"{server} ({len(roots)})" for server, roots in settings.servers.items())


def roots_of(bridge: MCPBridge, server: str) -> list[Root]:
    """The roots `server` is told: its configured roots, or what `set_roots` set last."""
    found = _server_roots(bridge, server)
    return list(found.result.roots) if found is not None else []


async def set_roots(bridge: MCPBridge, server: str, roots: Sequence[str | Mapping[str, Any]]) -> None:
    """Replace the roots of `server` (`file://` URIs, or `{"uri": ..., "name": ...}`) and tell
    a legacy server that read them (`notifications/roots/list_changed`); a modern server gets
    the new roots the next time it asks. Raises `ConfigError` for a bad root (the old ones stay)
    or a server that was never told the client has roots."""
    found = _server_roots(bridge, server)
    if found is None:
        raise ConfigError(
            f"server {server!r} was not given roots, so it was never told this client has roots: list it in "
            f"[plugins.roots], e.g. `servers = {{{server} = []}}`, then change them with `set_roots`"
        )
    try:
        checked = [RootConfig.model_validate(root) for root in roots]
    except ValidationError as exc:
        problems = "; ".join(message for _, message in validation_problems(exc))
        raise ConfigError(f"set_roots for server {server!r}: {problems}") from None
    found.set(checked)
    await found.changed()


def _server_roots(bridge: MCPBridge, server: str) -> ServerRoots | None:
    if server not in bridge.servers:
        raise ConfigError.unknown_server(server, bridge.servers)
    if "roots" not in bridge.chain:
        raise PluginError(
            "this bridge has no roots plugin: load it with MCPBridge(..., plugins=['roots']) or enable it "
            "in [plugins] (it may be disabled or missing from `enabled`)"
        )
    from mcpbridge_roots.answering import RootsInterceptor

    for interceptor in bridge.interceptors:
        if isinstance(interceptor, RootsInterceptor):
            return interceptor.roots.get(server)
    return None
