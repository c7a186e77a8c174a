"""The plugin manager: find plugins through the `mcpbridge` entry point group, load them one
at a time, decide which are enabled, order them by what they declare, validate their
settings once, and call their hooks through typed methods (so mypy checks every hook call)."""

from __future__ import annotations

import importlib.metadata
import logging
import os
import sys
import types
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pluggy
from pydantic import BaseModel, ValidationError

from mcpbridge._base.config import ServerConfig, Settings
from mcpbridge._base.errors import ConfigError, PluginError
from mcpbridge._base.pipeline import ToolCallInterceptor, tracing
from mcpbridge._platform import hookspecs
from mcpbridge._platform.claims import ClaimStore
from mcpbridge._platform.declaration import DECLARATION, Capability, Plugin, declaration_of
from mcpbridge._platform.ordering import chain_order, refuse_positional_options

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = hookspecs.PROJECT
DIRECT = "interceptors"
"""The name that places `MCPBridge(interceptors=[...])` in `[plugins] order`."""
_DIRECT_PLUGIN = Plugin(position=100)

ENV_NO_AUTOLOAD = "MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD"
ENV_ALLOW = "MCPBRIDGE_PLUGINS"
ENV_DENY = "MCPBRIDGE_DISABLED_PLUGINS"


@dataclass(frozen=True)
class PluginConfig:
    """What every hook receives: the bridge's settings and each plugin's own table."""

    settings: Settings
    chain: tuple[str, ...] = ()
    """The interceptor chain's plugin names, outermost first (`"interceptors"` stands for
    `MCPBridge(interceptors=...)`), e.g. to refuse a `[plugins] order` that would put
    something inside a layer that must be innermost."""

    @property
    def source(self) -> str | None:
        return self.settings.source

    def section(self, plugin: str) -> dict[str, Any]:
        """The raw `[plugins.<plugin>]` table (empty when absent)."""
        return self.settings.plugins.sections.get(plugin, {})


@dataclass
class PluginInfo:
    """One plugin as `mcpbridge plugins` shows it."""

    name: str
    distribution: str | None = None
    version: str | None = None
    hooks: list[str] = field(default_factory=list)
    position: int | None = None
    enabled: bool = True
    reason: str = ""
    declared: Plugin | None = None

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


class PluginHost:
    """The bridge's plugins, loaded and ordered, with one method per hook."""

    def __init__(
        self, settings: Settings, explicit: Sequence[object | str] | None = None, *, direct: bool = False
    ) -> None:
        """`explicit`: `MCPBridge(plugins=...)`; `direct`: whether `MCPBridge(interceptors=...)`
        gave any, which then take their place in the chain as `"interceptors"`."""
        self.settings = settings
        self._direct = direct
        self.manager = pluggy.PluginManager(hookspecs.PROJECT)
        self.manager.add_hookspecs(hookspecs)
        self.infos: dict[str, PluginInfo] = {}
        self.plugin_settings: dict[str, BaseModel | None] = {}
        self.contributed: dict[str, list[ToolCallInterceptor]] = {}
        self._available = {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
        available = self._available
        given = [item if isinstance(item, str) else _object_name(item) for item in explicit or ()]
        self._check_names(available, given)
        if explicit is not None:
            self._load_explicit(explicit, available)
        else:
            self._load_selected(available, os.environ)
        try:
            self.manager.check_pending()
        except pluggy.PluginValidationError as exc:
            name = self.manager.get_name(exc.plugin) or repr(exc.plugin)
            raise PluginError(
                f"plugin {name!r} implements a hook that does not exist: {exc} (check the name against docs/hooks.md)"
            ) from None
        self.order = self._ordered()
        self.config = PluginConfig(settings, tuple(self.order))
        for position, name in enumerate(n for n in self.order if n in self.infos):
            self.infos[name].position = position

    # -- loading -------------------------------------------------------------------

    def _load_explicit(
        self, explicit: Sequence[object | str], available: Mapping[str, importlib.metadata.EntryPoint]
    ) -> None:
        for item in explicit:
            if isinstance(item, str):
                if item not in available:
                    raise PluginError(f"unknown plugin {item!r}; installed plugins: {_names(available)}")
                self._load(available[item], strict=True)
            else:
                self._register(item, _object_name(item), None)
        for name, ep in available.items():
            self.infos.setdefault(name, self._info(name, ep, enabled=False, reason="not in MCPBridge(plugins=...)"))

    def _load_selected(self, available: Mapping[str, importlib.metadata.EntryPoint], env: Mapping[str, str]) -> None:
        conf = self.settings.plugins
        allow = _split(env.get(ENV_ALLOW)) or conf.enabled
        env_deny = set(_split(env.get(ENV_DENY)) or ())
        autoload = conf.autoload and not _truthy(env.get(ENV_NO_AUTOLOAD))
        for name, ep in sorted(available.items()):
            if name in env_deny or name in conf.disabled:
                reason = f"disabled ({ENV_DENY})" if name in env_deny else "disabled in [plugins] disabled"
                self.infos[name] = self._info(name, ep, enabled=False, reason=reason)
            elif allow is not None and name not in allow:
                self.infos[name] = self._info(name, ep, enabled=False, reason="not in the enabled list")
            elif not autoload and allow is None:
                self.infos[name] = self._info(name, ep, enabled=False, reason="plugin autoload is off")
            else:
                self._load(ep, strict=conf.strict or allow is not None)

    def _load(self, ep: importlib.metadata.EntryPoint, *, strict: bool) -> None:
        dist = ep.dist.name if ep.dist else None
        try:
            plugin = ep.load()
            self._register(plugin, ep.name, ep)
        except Exception as exc:
            message = (
                f"plugin {ep.name!r} (distribution {dist or 'unknown'}) failed to load: "
                f"{type(exc).__name__}: {exc}. Fix or uninstall it, or disable it with "
                f'{ENV_DENY}={ep.name} or `disabled = ["{ep.name}"]` in [plugins]'
            )
            if strict or isinstance(exc, PluginError):
                raise PluginError(message) from exc
            warnings.warn(message, RuntimeWarning, stacklevel=2)
            self.infos[ep.name] = self._info(
                ep.name, ep, enabled=False, reason=f"failed to load: {type(exc).__name__}: {exc}"
            )

    def _register(self, plugin: object, name: str, ep: importlib.metadata.EntryPoint | None) -> None:
        declared = getattr(plugin, DECLARATION, None) or Plugin()
        if not isinstance(declared, Plugin):
            raise PluginError(
                f"plugin {name!r}: `{DECLARATION}` must be a `mcpbridge.Plugin(...)`, not a {type(declared).__name__}"
            )
        try:
            self.manager.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plugin {name!r} is invalid: {exc}") from None
        except ValueError as exc:
            raise PluginError(f"plugin {name!r} is registered twice: {exc}") from None
        callers = self.manager.get_hookcallers(plugin) or []
        for caller in callers:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    refuse_positional_options(name, impl)
        info = self._info(name, ep, enabled=True, reason="")
        info.hooks = sorted(caller.name for caller in callers)
        info.declared = declared
        self.infos[name] = info

    def _info(self, name: str, ep: importlib.metadata.EntryPoint | None, *, enabled: bool, reason: str) -> PluginInfo:
        dist = ep.dist if ep is not None else None
        return PluginInfo(name, dist.name if dist else None, dist.version if dist else None, [], None, enabled, reason)

    def _check_names(self, available: Mapping[str, importlib.metadata.EntryPoint], given: Iterable[str]) -> None:
        conf = self.settings.plugins
        known = set(available) | set(given) | {DIRECT}
        for key, names in (("enabled", conf.enabled or []), ("disabled", conf.disabled), ("order", conf.order)):
            for name in names:
                if name not in known:
                    raise ConfigError(
                        f"unknown plugin {name!r} in [plugins] {key}"
                        + (f" ({self.settings.source})" if self.settings.source else "")
                        + f"; installed plugins: {_names(available)}"
                    )
        for name in conf.sections:
            if name not in known:
                installed = _names(available)
                raise ConfigError(
                    f"[plugins.{name}] configures a plugin that is not installed; installed plugins: {installed}"
                )

    def _ordered(self) -> list[str]:
        declared = {name: info.declared or Plugin() for name, info in self.infos.items() if info.enabled}
        if self._direct:
            declared[DIRECT] = _DIRECT_PLUGIN
        explicit = [name for name in self.settings.plugins.order if name in declared]
        return chain_order(declared, explicit)

    def declared(self, name: str) -> Plugin:
        info = self.infos.get(name)
        return info.declared if info is not None and info.declared is not None else Plugin()

    # -- hooks ---------------------------------------------------------------------

    @property
    def enabled(self) -> list[str]:
        return [name for name in self.order if name != DIRECT]

    def configure(self) -> None:
        """Validate every plugin's settings (once), then call `mcpbridge_configure`."""
        self.plugin_settings = {name: self._parse(name) for name in self.enabled}
        for impl in self._impls("mcpbridge_configure"):
            self._call(impl)

    def interceptors(self, direct: Iterable[ToolCallInterceptor] = ()) -> list[ToolCallInterceptor]:
        """Every plugin's interceptors, in chain order, with `direct` ones at their place."""
        shape = "an `async (request, handler)` callable"
        self.contributed = {DIRECT: list(direct), **self._callables("mcpbridge_interceptors", shape, many=True)}
        return [ic for name in self.order for ic in self.contributed.get(name, ())]

    def client_options(self, server_name: str, server: ServerConfig) -> dict[str, Any]:
        """Merged `mcp.Client` options from every plugin for one server."""
        merged: dict[str, Any] = {}
        owners: dict[str, str] = {}
        for impl in self._impls("mcpbridge_client_options"):
            options = self._call(impl, server_name=server_name, server=server) or {}
            for key, value in dict(options).items():
                if key in owners:
                    raise PluginError(
                        f"plugins {owners[key]!r} and {impl.plugin_name!r} both set the mcp Client option "
                        f"{key!r} for server {server_name!r}; disable one of them"
                    )
                owners[key] = impl.plugin_name
                merged[key] = value
        return merged

    def claim_store(self) -> ClaimStore | None:
        """The claim store a plugin provides (`mcpbridge_claim_store`), or None."""
        found: ClaimStore | None = None
        owner = ""
        for impl in self._impls("mcpbridge_claim_store"):
            store = self._call(impl)
            if store is None:
                continue
            if not isinstance(store, ClaimStore):
                raise PluginError(
                    f"plugin {impl.plugin_name!r} returned {type(store).__name__} from mcpbridge_claim_store, "
                    "which lacks `async claim(key, owner)`, `async release(key, owner)` or `async aclose()`"
                )
            if found is not None:
                raise PluginError(
                    f"plugins {owner!r} and {impl.plugin_name!r} both provide a claim store "
                    "(mcpbridge_claim_store); enable only one of them"
                )
            found, owner = store, impl.plugin_name
        return found

    def bridge_observers(self) -> list[hookspecs.BridgeObserver]:
        """Every plugin's listener for the bridge's own events (`mcpbridge_bridge_observer`)."""
        found = self._callables("mcpbridge_bridge_observer", "an `(event, data) -> None` callable", many=False)
        return [observer for observers in found.values() for observer in observers]

    def status(self) -> dict[str, str]:
        """Each plugin's one line for `mcpbridge plugins` (`mcpbridge_status`)."""
        lines: dict[str, str] = {}
        for impl in self._impls("mcpbridge_status"):
            line = self._call(impl)
            if line:
                lines[impl.plugin_name] = str(line)
        return lines

    async def teardown(self) -> None:
        """`mcpbridge_teardown` of every plugin, innermost first."""
        for impl in reversed(self._impls("mcpbridge_teardown")):
            pending = self._call(impl, interceptors=tuple(self.contributed.get(impl.plugin_name, ())))
            if pending is not None:
                await pending

    def commands(self, add_command: hookspecs.AddCommand) -> None:
        """Let every plugin add its sub-commands (`mcpbridge_commands`)."""
        for impl in self._impls("mcpbridge_commands"):
            self._call(impl, add_command=add_command)

    def unanswered(self, capability: Capability | None = None) -> str:
        """A hint for a server request that no plugin answered: the installed plugins that
        declare that they answer it, and why they did not (disabled, or their own advice).
        Plugins that were not loaded are imported here, on this error path only, to read
        their declaration."""
        what = capability or "this client capability"
        answering = []
        for name, info in sorted(self.infos.items()):
            declared = info.declared or declaration_of(self._available.get(name))
            if declared is not None and (capability in declared.answers if capability else declared.answers):
                why = info.reason or f"enabled: {declared.advice or 'but not for this server'}"
                answering.append(f"{name} ({'; '.join(filter(None, (info.distribution, why)))})")
        if not answering:
            return (
                f"no installed plugin answers {what}: install one that declares "
                f"`Plugin(answers=({what!r},))` (see `mcpbridge plugins`)"
            )
        return f"no plugin answered {what}; installed plugins that can: {', '.join(answering)}"

    def _parse(self, name: str) -> BaseModel | None:
        model = self.declared(name).settings
        if model is None:
            return None
        try:
            section = self.settings.plugins.sections.get(name, {})
            return model.model_validate(section, context={"servers": self.settings.servers})
        except ValidationError as exc:
            where = f" in {self.settings.source}" if self.settings.source else ""
            problems = "; ".join(
                f"`plugins.{name}.{'.'.join(str(p) for p in e['loc'])}`: "
                + ("unknown key" if e["type"] == "extra_forbidden" else e["msg"].removeprefix("Value error, "))
                for e in exc.errors()
            )
            raise ConfigError(f"plugin {name!r}: invalid settings{where}: {problems}") from None

    def _callables(self, hook: str, shape: str, *, many: bool) -> dict[str, list[Any]]:
        """Each plugin's callables from `hook` (a sequence of them when `many`, else one or
        None), by plugin; anything not callable is a `PluginError` naming `shape`."""
        found: dict[str, list[Any]] = {}
        for impl in self._impls(hook):
            result = self._call(impl)
            items = list(result or ()) if many else [] if result is None else [result]
            for item in items:
                if not callable(item):
                    raise PluginError(
                        f"plugin {impl.plugin_name!r} returned {item!r} from {hook}, which is not {shape}"
                    )
            found[impl.plugin_name] = items
        return found

    def _impls(self, hook: str) -> list[pluggy.HookImpl]:
        impls = getattr(self.manager.hook, hook).get_hookimpls()
        position = {name: i for i, name in enumerate(self.order)}
        return sorted(impls, key=lambda impl: position.get(impl.plugin_name, len(position)))

    def _call(self, impl: pluggy.HookImpl, **kwargs: Any) -> Any:
        given = {"config": self.config, "settings": self.plugin_settings.get(impl.plugin_name), **kwargs}
        if tracing():
            where = self.order.index(impl.plugin_name) if impl.plugin_name in self.order else "-"
            print(f"mcpbridge hook: #{where} {impl.plugin_name}.{impl.function.__name__}", file=sys.stderr)
        try:
            return impl.function(*(given[name] for name in impl.argnames))
        except (ConfigError, PluginError):
            raise
        except Exception as exc:
            raise PluginError(
                f"plugin {impl.plugin_name!r} failed in {impl.function.__name__}: {type(exc).__name__}: {exc}"
            ) from exc


def _object_name(plugin: object) -> str:
    name = getattr(plugin, "mcpbridge_name", None)
    if isinstance(name, str):
        return name
    if isinstance(plugin, types.ModuleType):
        return plugin.__name__.rsplit(".", 1)[-1].removeprefix("mcpbridge_")
    return type(plugin).__name__


def _split(value: str | None) -> list[str] | None:
    if value is None or not value.strip():
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def _names(available: Iterable[str]) -> str:
    return ", ".join(sorted(available)) or "none"
