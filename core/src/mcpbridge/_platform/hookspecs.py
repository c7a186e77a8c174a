"""Every hook a plugin can implement, with its exact signature.

Hooks are synchronous and run when a bridge is built (`mcpbridge_teardown` when it
closes); they return objects (interceptors, client callbacks) that the core awaits later.
An implementation takes any subset of a hook's arguments, by name. Every hook gets
`context`, the bridge's `BridgeContext`: the whole configuration, the plugin's own validated
table (`context.settings_of(MySettings)`, the model its `Plugin(settings=...)` declares), the
chain, and `stash` for per-bridge state. The core calls each plugin's implementation on its
own (pluggy's `subset_hook_caller`), outermost plugin first: the chain's order, which plugins
declare with `mcpbridge_plugin = Plugin(...)`; a `wrapper=True` implementation wraps its own
plugin's call. Set `MCPBRIDGE_TRACE_HOOKS=1` to see every hook call (and every interceptor a
tool call passes through) on stderr, in the order they run.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, runtime_checkable

import pluggy

if TYPE_CHECKING:
    from mcp.types import Tool

    from mcpbridge._base.config import ServerConfig
    from mcpbridge._base.pipeline import ToolCallInterceptor
    from mcpbridge._platform.context import BridgeContext
    from mcpbridge._toolkit.claims import ClaimStore

PROJECT = "mcpbridge"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

AddCommand: TypeAlias = Callable[[str, Callable[[argparse.Namespace], "int | None"], str], argparse.ArgumentParser]
"""`add_command(name, run, help) -> parser`: adds `mcpbridge <name>`; `run(options)` gets the
parsed arguments (with `options.config`) and returns an exit code."""

BridgeObserver: TypeAlias = Callable[[str, Mapping[str, Any]], None]
"""`(event, data) -> None`: told what happened to the bridge itself, outside any one call."""


@runtime_checkable
class ToolReview(Protocol):
    """Sees each listing of a server's tools before the bridge builds them (`mcpbridge_tool_review`)."""

    async def review(self, server: str, tools: Sequence[Tool]) -> list[Tool]:
        """The tools of `server` to offer (left out, or changed, as the reviewer sees fit)."""

    def left_out(self, server: str, name: str) -> str | None:
        """Why `server`'s tool `name` (its own name) is not offered, when this review left it out."""


@hookspec
def mcpbridge_check_settings(context: BridgeContext) -> None:
    """Check what the settings model cannot (e.g. a combination of keys with the servers'
    transports) when a bridge is built, before any other hook. Raise `ConfigError` to refuse
    them; the return value is ignored."""


@hookspec
def mcpbridge_interceptors(context: BridgeContext) -> Sequence[ToolCallInterceptor] | None:
    """Contribute tool-call interceptors, once per bridge.

    Return the interceptors your plugin adds, outermost first, or None. They sit in the
    chain at your plugin's place; each is an `async (request, handler) -> result`. Keep any
    state on the objects you return: they live as long as the bridge."""


@hookspec
def mcpbridge_client_options(
    server_name: str, server: ServerConfig, context: BridgeContext
) -> Mapping[str, Any] | None:
    """Contribute keyword arguments for the mcp `Client` of one server, once per server.

    Return a mapping of `mcp.Client` options (e.g. `elicitation_callback`,
    `logging_callback`, `sampling_callback`, `list_roots_callback`) or None. Two plugins
    giving the same option is an error. Wrap a value in `mcpbridge.ModernOnly(...)` when it can
    answer modern-protocol servers only: a legacy server is then never told the client has
    that capability. Declare what you answer in `Plugin(answers=...)`."""


@hookspec
def mcpbridge_claim_store(context: BridgeContext) -> ClaimStore | None:
    """Provide the store where workers claim resumed calls (shared by every worker that may
    resume the same threads), once per bridge, or None. At most one plugin may provide one;
    without any, claims are held in this process. The core's claiming layer (innermost in
    `bridge.chain`) claims there, and calls the store's `aclose()` when the bridge closes."""


@hookspec
def mcpbridge_tool_review(context: BridgeContext) -> ToolReview | None:
    """Provide a `ToolReview` that sees every listing of every server's tools, once per bridge,
    or None. Reviews run in chain order, each on what the one before offers; a tool one leaves
    out is missing from `list_tools()`, and `call_tool` names its `left_out` reason."""


@hookspec
def mcpbridge_bridge_observer(context: BridgeContext) -> BridgeObserver | None:
    """Contribute a listener for events of the bridge itself (not of one tool call), once per
    bridge, or None. A plugin announces such an event with `context.notify(event, data)`, on
    the bridge's event loop: keep the listener quick, never block. One that raises is logged
    and the others still hear. The events are the plugins' own (docs/hooks.md lists them)."""


@hookspec
def mcpbridge_teardown(context: BridgeContext) -> Awaitable[None] | None:
    """Release what your interceptors hold (a Redis client, an exporter) when the bridge
    closes, innermost plugin first: keep it in `context.stash` when you build them. Return an
    awaitable to be awaited on the bridge's event loop, or None. A bridge may be opened again
    after closing: leave the interceptors usable."""


@hookspec
def mcpbridge_status(context: BridgeContext) -> str | None:
    """One line for `mcpbridge plugins` saying what the plugin will do with these settings
    (e.g. "caches nothing: no rules"), or None."""
