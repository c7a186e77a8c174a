"""What every hook receives as `config`: the bridge's whole settings, the chain, the
artifact types its plugins declare, and the plugins' per-bridge state.

The state is a `Stash` (pytest's `config.stash`): a plugin keeps what it builds for one
bridge (a model client, a shared sampler) there, never in a module-global map keyed by the
bridge, and the state dies with the bridge.

    SAMPLER = StashKey[Sampler]()

    def sampler(settings: Settings, config: BridgeContext) -> Sampler:
        if SAMPLER not in config.stash:
            config.stash[SAMPLER] = Sampler(settings)
        return config.stash[SAMPLER]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from mcpbridge._base.config import Settings

logger = logging.getLogger(__name__)

T = TypeVar("T")
D = TypeVar("D")


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
    """The interceptor chain's plugin names, outermost first (`"interceptors"` stands for
    `MCPBridge(interceptors=...)`), e.g. to refuse a `[plugins] order` that would put
    something inside a layer that must be innermost."""
    artifact_types: frozenset[str] = frozenset()
    """The `type`s of the `request.artifact` entries the enabled plugins declare they add
    (`Plugin(artifacts=...)`), so a plugin reporting on calls tells them from other entries."""
    stash: Stash = field(default_factory=Stash, compare=False, repr=False)
    """The plugins' state for this bridge (`config.stash[KEY]`, keys are `StashKey[T]()`)."""
    observers: list[Callable[[str, Mapping[str, Any]], None]] = field(default_factory=list, compare=False, repr=False)
    """The plugins' listeners for the bridge's own events (`mcpbridge_bridge_observer`)."""

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
