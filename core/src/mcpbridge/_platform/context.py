"""What every hook receives as `context`: the bridge's whole settings, each plugin's
validated table, the chain, the artifact types its plugins declare, and the plugins'
per-bridge state.

The state is a `Stash` (pytest's `config.stash`): a plugin keeps what it builds for one
bridge (a model client, a shared sampler) there, never in a module-global map keyed by the
bridge, and the state dies with the bridge.

    SAMPLER = StashKey[Sampler]()

    def sampler(context: BridgeContext) -> Sampler:
        if SAMPLER not in context.stash:
            context.stash[SAMPLER] = Sampler(context.settings_of(SamplingSettings))
        return context.stash[SAMPLER]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel

from mcpbridge._base.config import Settings
from mcpbridge._base.errors import PluginError

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
