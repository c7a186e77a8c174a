"""Hooks called through pluggy's own `manager.hook.<name>(...)`, so that pluggy's tracing,
`tryfirst` / `trylast` and wrappers work as pluggy users expect, while each implementation
still gets its own plugin's `settings` and `interceptors`, its errors name the plugin, and
the host learns which plugin gave which answer (it places interceptors by plugin).

pluggy hands every implementation the same arguments; the per-plugin ones differ, so when a
plugin registers, each of its `HookImpl`s is bound once to a function that puts them in."""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, cast

import pluggy

from mcpbridge._base.errors import ConfigError, PluginError
from mcpbridge._base.lazy import tracing
from mcpbridge._compat import rebind_hookimpl

OWN = ("settings", "interceptors")
"""Hook arguments whose value is each plugin's own, not one for all."""


class _Own:
    """What the hook call passes for an `OWN` argument (pluggy's tracing shows this)."""

    def __repr__(self) -> str:
        return "<each plugin's own>"


EACH_OWN: Any = _Own()


class HookCalls:
    """The plugin manager's registrations and hook calls for one bridge."""

    def __init__(self, manager: pluggy.PluginManager, own: Callable[[str], Mapping[str, Any]]) -> None:
        """`own(plugin)`: that plugin's values of the `OWN` arguments, read at call time."""
        self.manager = manager
        self.order: Sequence[str] = ()
        self._own = own
        self._heard: dict[str, Any] | None = None

    def register(self, plugin: object, name: str) -> list[str]:
        """Register `plugin` with pluggy and bind its implementations; its hooks' names.
        pluggy calls the plugin registered last first: register innermost first."""
        self.manager.register(plugin, name=name)
        callers = self.manager.get_hookcallers(plugin) or []
        for caller in callers:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    self._bind(impl)
        return sorted(caller.name for caller in callers)

    def ask(self, hook: str, **kwargs: Any) -> dict[str, Any]:
        """Call `hook` through pluggy; each plugin's answer (None included), in chain order."""
        outer = self._heard
        heard = self._heard = {}
        try:
            getattr(self.manager.hook, hook)(**kwargs)
        finally:
            self._heard = outer
        return {name: heard[name] for name in self.order if name in heard}

    def _bind(self, impl: pluggy.HookImpl) -> None:
        function, names, plugin = impl.function, impl.argnames, impl.plugin_name
        hook = str(getattr(function, "__name__", "hook"))

        def given(args: tuple[Any, ...]) -> dict[str, Any]:
            """pluggy passes an implementation its arguments by position, in `argnames` order."""
            own = self._own(plugin)
            return {name: own.get(name) if name in OWN else value for name, value in zip(names, args, strict=True)}

        def call(*args: Any) -> Any:
            self._trace(plugin, hook)
            with _blamed(plugin, hook):
                answer = function(**given(args))
            if self._heard is not None:
                self._heard[plugin] = answer
            return answer

        def wrap(*args: Any) -> Generator[Any, Any, Any]:
            self._trace(plugin, hook)
            with _blamed(plugin, hook):
                return (yield from cast(Generator[Any, Any, Any], function(**given(args))))

        rebind_hookimpl(impl, wrap if impl.wrapper or impl.hookwrapper else call)

    def _trace(self, plugin: str, hook: str) -> None:
        if tracing():
            position = self.order.index(plugin) if plugin in self.order else "-"
            print(f"mcpbridge hook: #{position} {plugin}.{hook}", file=sys.stderr)


@contextmanager
def _blamed(plugin: str, hook: str) -> Iterator[None]:
    """An error a hook raises becomes a `PluginError` naming the plugin and the hook."""
    try:
        yield
    except (ConfigError, PluginError):
        raise
    except Exception as exc:
        raise PluginError(f"plugin {plugin!r} failed in {hook}: {type(exc).__name__}: {exc}") from exc
