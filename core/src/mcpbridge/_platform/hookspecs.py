"""Every hook a plugin can implement, with its exact signature, and the `context` every hook
receives (`BridgeContext`: the bridge's settings, each plugin's validated table, the chain and
the plugins' per-bridge `Stash`, pytest's `config.stash`).

Hooks are synchronous and run when a bridge is built (`mcpbridge_teardown` when it
closes); they return objects (interceptors, client callbacks) that the core awaits later.
An implementation takes any subset of a hook's arguments, by name. The core calls each
plugin's implementation on its own (pluggy's `subset_hook_caller`), outermost plugin first:
the chain's order, which plugins declare with `mcpbridge_plugin = Plugin(...)`; a
`wrapper=True` implementation wraps its own plugin's call. A plugin keeps what it builds for
one bridge in `context.stash`, never in a module-global map (docs/writing-plugins.md).
`MCPBRIDGE_TRACE_HOOKS=1` prints every hook call (and every interceptor a tool call passes
through) on stderr, in the order they run.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeAlias, TypeVar, cast, runtime_checkable

import pluggy
from pydantic import BaseModel

from mcpbridge._base.config import ServerConfig, Settings
from mcpbridge._base.errors import PluginError

if TYPE_CHECKING:
    from mcp.types import Tool

    from mcpbridge._base.pipeline import ToolCallInterceptor, ToolListInterceptor
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
def mcpbridge_list_interceptors(context: BridgeContext) -> Sequence[ToolListInterceptor] | None:
    """Contribute list interceptors, once per bridge: each `async (request, handler) -> tools`
    sees every listing made for a run (`bridge.list_tools(runtime=...)`, which `LiveCatalogue`
    makes before each model call), outermost plugin first, with the run's `request.runtime`.
    It may list with a person's credential (`request.override(authorization=...)`: the tools of
    that credential's session), pause the run, or list again. Return them, or None."""


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


logger = logging.getLogger(__name__)

T = TypeVar("T")
D = TypeVar("D")
M = TypeVar("M", bound=BaseModel)


class StashKey(Generic[T]):
    """A key of a `Stash`; the type parameter is the type of its value. Create one per kind
    of state, at module level: keys compare by identity, so two plugins never collide."""

    __slots__ = ()


class Stash:
    """A bridge's plugin state: `stash[key]` is typed by the key, `KeyError` when unset."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[StashKey[Any], object] = {}

    def __setitem__(self, key: StashKey[T], value: T) -> None:
        self._values[key] = value

    def __getitem__(self, key: StashKey[T]) -> T:
        return cast(T, self._values[key])

    def get(self, key: StashKey[T], default: D) -> T | D:
        """The value of `key`, or `default` when unset."""
        return cast(T, self._values[key]) if key in self._values else default

    def setdefault(self, key: StashKey[T], default: T) -> T:
        """The value of `key`, after setting it to `default` when unset."""
        return cast(T, self._values.setdefault(key, default))

    def __delitem__(self, key: StashKey[T]) -> None:
        del self._values[key]

    def __contains__(self, key: StashKey[T]) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)


@dataclass(frozen=True)
class BridgeContext:
    """One bridge as its plugins see it, the same object for every hook of that bridge."""

    settings: Settings
    chain: tuple[str, ...] = ()
    """`bridge.chain`: the layers' plugin names, outermost first (`DIRECT` stands for
    `MCPBridge(interceptors=...)`; the core's claiming layer is always last), e.g. to refuse a
    `[plugins] order` that would put something inside a layer that must be innermost."""
    artifact_types: frozenset[str] = frozenset()
    """The `type`s of the `request.artifact` entries the enabled plugins declare they add
    (`Plugin(artifacts=...)`), so a plugin reporting on calls tells them from other entries."""
    stash: Stash = field(default_factory=Stash, compare=False, repr=False)
    """The plugins' state for this bridge (`context.stash[KEY]`, keys are `StashKey[T]()`)."""
    observers: list[Callable[[str, Mapping[str, Any]], None]] = field(default_factory=list, compare=False, repr=False)
    """The plugins' listeners for the bridge's own events (`mcpbridge_bridge_observer`)."""
    tables: dict[type[BaseModel], BaseModel] = field(default_factory=dict, compare=False, repr=False)
    """Each enabled plugin's validated `[plugins.<name>]`, by the model it declares."""

    def settings_of(self, model: type[M]) -> M:
        """The `[plugins.<name>]` table of the plugin that declares `model` in
        `Plugin(settings=model)`, validated once when the bridge was built."""
        if (table := self.tables.get(model)) is None:
            raise PluginError(
                f"no enabled plugin declares the settings model {model.__qualname__}: declare it with "
                f"`mcpbridge_plugin = Plugin(settings={model.__name__})` in the plugin that reads it"
            )
        return cast(M, table)

    def notify(self, event: str, data: Mapping[str, Any]) -> None:
        """Tell every bridge observer of `event` (each gets its own copy of `data`); one that
        raises is logged, and the others still hear."""
        for observer in self.observers:
            try:
                observer(event, dict(data))
            except Exception:
                logger.exception("mcpbridge: a bridge observer failed on %s", event)

    @property
    def source(self) -> str | None:
        return self.settings.source

    def section(self, plugin: str) -> dict[str, Any]:
        """The raw `[plugins.<plugin>]` table (empty when absent)."""
        return self.settings.plugins.sections.get(plugin, {})
