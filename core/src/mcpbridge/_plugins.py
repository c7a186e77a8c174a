"""The plugin manager: find plugins through the `mcpbridge` entry point group, load them one
at a time, decide which are enabled, order them, and call their hooks through typed
methods (so mypy checks every hook call)."""

from __future__ import annotations

import importlib.metadata
import logging
import os
import types
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pluggy
from pydantic import BaseModel, ValidationError

from mcpbridge import _hookspecs as hookspecs
from mcpbridge._config import ServerConfig, Settings
from mcpbridge._errors import ConfigError, PluginError
from mcpbridge._pipeline import ToolCallInterceptor

logger = logging.getLogger(__name__)

ENTRY_POINT_GROUP = hookspecs.PROJECT
DEFAULT_ORDER = ("events", "otel", "approval", "cache", "elicitation", "retry", "headers")
"""Our plugins, outermost first. Others go inside them, by name."""
DIRECT = "interceptors"
"""The name that places `MCPBridge(interceptors=[...])` in `[plugins] order`."""

ENV_NO_AUTOLOAD = "MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD"
ENV_ALLOW = "MCPBRIDGE_PLUGINS"
ENV_DENY = "MCPBRIDGE_DISABLED_PLUGINS"

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class PluginConfig:
    """What every hook receives: the bridge's settings and each plugin's own table."""

    settings: Settings

    @property
    def source(self) -> str | None:
        return self.settings.source

    def section(self, plugin: str) -> dict[str, Any]:
        """The raw `[plugins.<plugin>]` table (empty when absent)."""
        return self.settings.plugins.sections.get(plugin, {})

    def parse(self, plugin: str, model: type[M]) -> M:
        """`[plugins.<plugin>]` validated by `model` (use `extra="forbid"`); errors name the
        plugin, the key and the file."""
        try:
            return model.model_validate(self.section(plugin))
        except ValidationError as exc:
            where = f" in {self.source}" if self.source else ""
            problems = "; ".join(
                f"`plugins.{plugin}.{'.'.join(str(p) for p in e['loc'])}`: "
                + ("unknown key" if e["type"] == "extra_forbidden" else e["msg"])
                for e in exc.errors()
            )
            raise ConfigError(f"plugin {plugin!r}: invalid settings{where}: {problems}") from None


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

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "hooks": self.hooks,
            "position": self.position,
            "state": "enabled" if self.enabled else "disabled",
            "reason": self.reason,
        }


class PluginHost:
    """The bridge's plugins, loaded and ordered, with one method per hook."""

    def __init__(self, settings: Settings, explicit: Sequence[object | str] | None = None) -> None:
        self.settings = settings
        self.config = PluginConfig(settings)
        self.manager = pluggy.PluginManager(hookspecs.PROJECT)
        self.manager.add_hookspecs(hookspecs)
        self.infos: dict[str, PluginInfo] = {}
        available = {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
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
        try:
            self.manager.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise PluginError(f"plugin {name!r} is invalid: {exc}") from None
        except ValueError as exc:
            raise PluginError(f"plugin {name!r} is registered twice: {exc}") from None
        info = self._info(name, ep, enabled=True, reason="")
        info.hooks = sorted(caller.name for caller in self.manager.get_hookcallers(plugin) or ())
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
        enabled = [name for name, info in self.infos.items() if info.enabled]
        rank = {name: i for i, name in enumerate(DEFAULT_ORDER)}
        default = [*sorted(enabled, key=lambda n: (n not in rank, rank.get(n, 0), n)), DIRECT]
        explicit = [name for name in self.settings.plugins.order if name in default]
        return explicit + [name for name in default if name not in explicit]

    # -- hooks ---------------------------------------------------------------------

    @property
    def enabled(self) -> list[str]:
        return [name for name in self.order if name != DIRECT]

    def configure(self) -> None:
        """Call `mcpbridge_configure` on every plugin."""
        for impl in self._impls("mcpbridge_configure"):
            self._call(impl, config=self.config)

    def interceptors(self, direct: Iterable[ToolCallInterceptor] = ()) -> list[ToolCallInterceptor]:
        """Every plugin's interceptors, in chain order, with `direct` ones at their place."""
        contributed: dict[str, list[ToolCallInterceptor]] = {DIRECT: list(direct)}
        for impl in self._impls("mcpbridge_interceptors"):
            result = self._call(impl, config=self.config) or []
            for interceptor in result:
                if not callable(interceptor):
                    raise PluginError(
                        f"plugin {impl.plugin_name!r} returned {interceptor!r} from mcpbridge_interceptors, "
                        "which is not an `async (request, handler)` callable"
                    )
            contributed[impl.plugin_name] = list(result)
        return [ic for name in self.order for ic in contributed.get(name, ())]

    def client_options(self, server_name: str, server: ServerConfig) -> dict[str, Any]:
        """Merged `mcp.Client` options from every plugin for one server."""
        merged: dict[str, Any] = {}
        owners: dict[str, str] = {}
        for impl in self._impls("mcpbridge_client_options"):
            options = self._call(impl, server_name=server_name, server=server, config=self.config) or {}
            for key, value in dict(options).items():
                if key in owners:
                    raise PluginError(
                        f"plugins {owners[key]!r} and {impl.plugin_name!r} both set the mcp Client option "
                        f"{key!r} for server {server_name!r}; disable one of them"
                    )
                owners[key] = impl.plugin_name
                merged[key] = value
        return merged

    def commands(self) -> dict[str, Callable[[list[str]], int | None]]:
        """CLI sub-commands from every plugin (`mcpbridge_commands`)."""
        commands: dict[str, Callable[[list[str]], int | None]] = {}
        for impl in self._impls("mcpbridge_commands"):
            for name, main in dict(self._call(impl) or {}).items():
                if name in commands:
                    raise PluginError(f"two plugins add the sub-command {name!r}; disable one of them")
                commands[name] = main
        return commands

    def _impls(self, hook: str) -> list[pluggy.HookImpl]:
        impls = getattr(self.manager.hook, hook).get_hookimpls()
        position = {name: i for i, name in enumerate(self.order)}
        return sorted(impls, key=lambda impl: position.get(impl.plugin_name, len(position)))

    def _call(self, impl: pluggy.HookImpl, **kwargs: Any) -> Any:
        try:
            return impl.function(*(kwargs[name] for name in impl.argnames))
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
