"""Per-bridge plugin state (pytest's `config.stash`): each bridge hands its plugins one
`Stash`, so a plugin keeps what it builds for that bridge (a model client, a shared sampler)
there and never in a module-global map keyed by the bridge; the state dies with the bridge.

    SAMPLER = StashKey[Sampler]()

    def sampler(settings: Settings, config: BridgeContext) -> Sampler:
        if SAMPLER not in config.stash:
            config.stash[SAMPLER] = Sampler(settings)
        return config.stash[SAMPLER]
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, cast

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
