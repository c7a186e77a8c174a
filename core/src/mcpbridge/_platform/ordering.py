"""The interceptor chain's order: each plugin's declared position and before/after
constraints, resolved once per bridge; `[plugins] order` overrides them."""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from graphlib import CycleError, TopologicalSorter

from mcpbridge._base.errors import ConfigError
from mcpbridge._platform.declaration import Plugin


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
