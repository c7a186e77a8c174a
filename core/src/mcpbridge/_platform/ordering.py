"""The interceptor chain's order: each plugin's declared position and before/after
constraints, resolved once per bridge; `[plugins] order` overrides them."""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

import pluggy

from mcpbridge._base.errors import ConfigError, PluginError
from mcpbridge._platform.declaration import Plugin

_POSITIONAL_OPTIONS = ("tryfirst", "trylast", "wrapper", "hookwrapper")


def chain_order(declared: Mapping[str, Plugin], explicit: Sequence[str] = ()) -> list[str]:
    """Plugin names, outermost first. Names in `explicit` come first, in that order; the
    rest follow their constraints, then their position, then their name."""
    rest = [name for name in declared if name not in explicit]
    wraps: dict[str, set[str]] = {name: set() for name in rest}  # name -> names it must wrap
    for name in rest:
        plugin = declared[name]
        wraps[name].update(other for other in plugin.before if other in wraps and other != name)
        for other in plugin.after:
            if other in wraps and other != name:
                wraps[other].add(name)
    waiting = {name: 0 for name in rest}
    for inner in wraps.values():
        for name in inner:
            waiting[name] += 1
    ready = [(declared[name].position, name) for name in rest if waiting[name] == 0]
    heapq.heapify(ready)
    ordered: list[str] = []
    while ready:
        _, name = heapq.heappop(ready)
        ordered.append(name)
        for wrapped in sorted(wraps[name]):
            waiting[wrapped] -= 1
            if waiting[wrapped] == 0:
                heapq.heappush(ready, (declared[wrapped].position, wrapped))
    if len(ordered) < len(rest):
        stuck = sorted(name for name in rest if waiting[name] > 0)
        pairs = ", ".join(
            f"{outer} before {inner}" for outer in stuck for inner in sorted(wraps[outer]) if inner in stuck
        )
        raise ConfigError(
            f"the plugins {', '.join(stuck)} declare positions that contradict each other ({pairs}): "
            'decide with `order = [...]` in [plugins], e.g. order = ["' + '", "'.join(stuck) + '"]'
        )
    return [*explicit, *ordered]


def refuse_positional_options(name: str, impl: pluggy.HookImpl) -> None:
    """pluggy's ordering options mean nothing here: the chain's order is declared."""
    for option in _POSITIONAL_OPTIONS:
        if getattr(impl, option, False):
            raise PluginError(
                f"plugin {name!r}: `@hookimpl({option}=True)` on {impl.function.__name__} has no effect in mcpbridge, "
                "which calls each plugin's hooks on their own, in chain order: declare where the plugin sits "
                "with `mcpbridge_plugin = Plugin(position=..., before=(...), after=(...))` and drop the option"
            )
