"""The chain: what a plugin declares about itself (where its interceptors sit, its settings
model, the client capabilities it answers and the artifact entries it adds), the order
resolved from those declarations, the core's own layers, registered as plugins at their
places (as datasette registers its default plugins), and the layers of one tool.

    mcpbridge_plugin = Plugin(settings=Settings, position=40, after=("approval",))

The core reads the module (or object) attribute `mcpbridge_plugin`; a plugin without one
gets `Plugin()`: no settings model, position 50, no capability. An interceptor with
`applies_to(server_name, tool)` is asked once per tool definition and left out of the chain
of a tool it answers False for; tools whose interceptors answer alike share one `Layering`.
"""

from __future__ import annotations

import heapq
import importlib.metadata
import logging
import types
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from graphlib import CycleError, TopologicalSorter
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from mcpbridge._base.errors import ConfigError
from mcpbridge._base.protocol import Capability
from mcpbridge._platform.hookspecs import hookimpl
from mcpbridge._toolkit.claims import CLAIMING, LOCAL_CLAIMS, ClaimStore, claiming

if TYPE_CHECKING:
    from mcp.types import Tool

    from mcpbridge._base.pipeline import ToolCallInterceptor  # imports mcp: `mcpbridge plugins` stays quick


logger = logging.getLogger(__name__)

DECLARATION = "mcpbridge_plugin"
"""The attribute the core reads a plugin's `Plugin` from."""


@dataclass(frozen=True, slots=True)
class Plugin:
    """A plugin's declaration (module attribute `mcpbridge_plugin`)."""

    settings: type[BaseModel] | None = None
    """The model of `[plugins.<name>]`. The core validates the table once when a bridge is
    built (errors name the plugin, the key and the file) and hands the instance to every hook
    that takes a `settings` argument. Use `extra="forbid"`; annotate server names with
    `ServerName` and tool patterns with `ToolSelector` so that typos are refused."""
    position: int = 50
    """0 (outermost, sees every call first) to 100 (innermost, next to the server). Plugins
    with equal positions are ordered by name; `MCPBridge(interceptors=...)` sit at 100."""
    before: tuple[str, ...] = ()
    """Plugins this one must wrap (sit outside of), when they are enabled."""
    after: tuple[str, ...] = ()
    """Plugins that must wrap this one, when they are enabled."""
    answers: tuple[Capability, ...] = ()
    """Client capabilities this plugin answers (through `mcpbridge_client_options` or an
    interceptor); named in the hint when a server asks for one that nobody answers."""
    advice: str = ""
    """What to change when the plugin is enabled and still did not answer a server (e.g. a
    setting that legacy-protocol servers need); shown in that hint."""
    artifacts: tuple[str, ...] = ()
    """The `type`s of the entries this plugin adds to `request.artifact` (e.g.
    `("myplugin_status",)`). Hooks see the enabled plugins' union as
    `config.artifact_types`, so a plugin that reports on calls (events) tells them apart from
    the core's own entries and from anything else an interceptor adds."""


@dataclass
class PluginInfo:
    """One plugin as `mcpbridge plugins` shows it."""

    name: str
    distribution: str | None = None
    version: str | None = None
    reason: str = ""
    """Why the plugin is disabled."""
    declared: Plugin | None = None
    """Its declaration, once it is loaded and enabled (None: disabled)."""
    hooks: list[str] = field(default_factory=list)
    position: int | None = None

    @classmethod
    def of(
        cls, name: str, ep: importlib.metadata.EntryPoint | None, reason: str = "", declared: Plugin | None = None
    ) -> PluginInfo:
        if ep is None or ep.dist is None:
            return cls(name, None, None, reason, declared)
        metadata = ep.dist.metadata  # parsed once (`dist.name` and `dist.version` parse it each)
        return cls(name, metadata["Name"], metadata["Version"], reason, declared)

    @property
    def enabled(self) -> bool:
        return self.declared is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "hooks": self.hooks,
            "position": self.position,
            "state": "enabled" if self.enabled else "disabled",
            "reason": self.reason,
            "answers": list(self.declared.answers) if self.declared else [],
            "settings": self.declared.settings.__name__ if self.declared and self.declared.settings else None,
        }


def declaration_of(ep: importlib.metadata.EntryPoint) -> Plugin | None:
    """The `Plugin` an entry point's object declares, or None (also when it fails to load)."""
    try:
        declared = getattr(ep.load(), DECLARATION, None)
    except Exception:  # a plugin that fails to load answers nothing
        return None
    return declared if isinstance(declared, Plugin) else None


def chain_order(declared: Mapping[str, Plugin], explicit: Sequence[str] = ()) -> list[str]:
    """Plugin names, outermost first. Names in `explicit` come first, in that order; the
    rest follow their constraints, then their position, then their name."""
    rest = [name for name in declared if name not in explicit]
    sorter: TopologicalSorter[str] = TopologicalSorter({name: () for name in rest})  # name -> names outside it
    for name in rest:
        plugin = declared[name]
        for inner, outer in [*((other, name) for other in plugin.before), *((name, other) for other in plugin.after)]:
            if inner != outer and {inner, outer} <= set(rest):
                sorter.add(inner, outer)
    try:
        sorter.prepare()
    except CycleError as exc:  # name the cycle of constraints, each one outside the next, from its first name
        cycle = exc.args[1][:-1]
        first = cycle.index(min(cycle))
        cycle = cycle[first:] + cycle[:first]
        pairs = ", ".join(f"{outer} before {inner}" for outer, inner in zip(cycle, [*cycle[1:], cycle[0]], strict=True))
        names = sorted(cycle)
        raise ConfigError(
            f"the plugins {', '.join(names)} declare positions that contradict each other ({pairs}): "
            'decide with `order = [...]` in [plugins], e.g. order = ["' + '", "'.join(names) + '"]'
        ) from None
    ready: list[tuple[int, str]] = []
    ordered: list[str] = []
    while sorter.is_active():
        for name in sorter.get_ready():
            heapq.heappush(ready, (declared[name].position, name))
        _, name = heapq.heappop(ready)
        ordered.append(name)
        sorter.done(name)
    return [*explicit, *ordered]


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


def name_of(plugin: object) -> str:
    """The name of a plugin given as an object: its `mcpbridge_name`, a module's name without
    `mcpbridge_`, or its class's name."""
    name = getattr(plugin, "mcpbridge_name", None)
    if isinstance(name, str):
        return name
    if isinstance(plugin, types.ModuleType):
        return plugin.__name__.rsplit(".", 1)[-1].removeprefix("mcpbridge_")
    return type(plugin).__name__


@dataclass(frozen=True, slots=True, eq=False)
class Layering:
    """The interceptors on one tool's chain, outermost first, and the layers it passes."""

    interceptors: tuple[ToolCallInterceptor, ...]
    chain: tuple[str, ...]
    """Each plugin once, in chain order (`MCPTool.chain`)."""


class ToolLayers:
    """Which of the plugins' interceptors each tool's chain holds."""

    def __init__(self, contributed: Mapping[str, Sequence[ToolCallInterceptor]], order: Sequence[str]) -> None:
        self._candidates = [(plugin, interceptor) for plugin in order for interceptor in contributed.get(plugin, ())]
        self._shared: dict[tuple[bool, ...], Layering] = {}

    def of(self, server_name: str, tool: Tool) -> Layering:
        """The layering of `tool` of `server_name` (the same object for every tool it fits)."""
        picked = tuple(_applies(plugin, interceptor, server_name, tool) for plugin, interceptor in self._candidates)
        if (layering := self._shared.get(picked)) is None:
            chosen = [candidate for candidate, keep in zip(self._candidates, picked, strict=True) if keep]
            chain = tuple(dict.fromkeys(plugin for plugin, _ in chosen))
            layering = self._shared[picked] = Layering(tuple(interceptor for _, interceptor in chosen), chain)
        return layering


def _applies(plugin: str, interceptor: ToolCallInterceptor, server_name: str, tool: Tool) -> bool:
    """Whether `interceptor` has work for the tool. One whose `applies_to` fails stays on the
    chain (a gate must not open because its plugin is broken), with a warning."""
    applies_to = getattr(interceptor, "applies_to", None)
    if applies_to is None:
        return True
    try:
        return bool(applies_to(server_name, tool))
    except Exception as exc:
        logger.warning(
            f"mcpbridge: plugin {plugin!r} failed in applies_to for tool {tool.name[:80]!r} of server "
            f"{server_name!r} ({type(exc).__name__}: {exc}); its interceptor stays on that tool's chain"
        )
        return True
