"""The plugin host: find plugins through the `mcpbridge` entry point group, load them one at a
time, decide which are enabled, order them by what they declare, validate their settings
once, and call their hooks through pluggy behind typed methods, one per hook; and the
installed plugins as a bridge would load them (`mcpbridge plugins`), without mcp or LangChain.

Each plugin's implementation of a hook is called on its own, in chain order, through pluggy's
`subset_hook_caller` (as pytest calls one directory's conftest hooks): the host learns whose
answer each is (it places interceptors by plugin), and an error names the plugin."""

from __future__ import annotations

import importlib.metadata
import logging
import os
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pluggy
from pydantic import BaseModel, ValidationError

import mcpbridge._platform.hookspecs as hookspecs
from mcpbridge._base.config import ServerConfig, Settings, did_you_mean
from mcpbridge._base.errors import ConfigError, PluginError, env_flag, tracing, validation_problems
from mcpbridge._base.protocol import CALLBACKS, Capability
from mcpbridge._platform.declaration import (
    DECLARATION,
    DIRECT,
    Claiming,
    Direct,
    Plugin,
    PluginInfo,
    chain_order,
    declaration_of,
    name_of,
)
from mcpbridge._platform.hookspecs import BridgeContext
from mcpbridge._toolkit.claims import CLAIMING, ClaimStore

if TYPE_CHECKING:
    from pluggy import HookImpl

    from mcpbridge._base.pipeline import ToolCallInterceptor, ToolListInterceptor


logger = logging.getLogger(__name__)

INSTALLED = "*"
"""In `MCPBridge(plugins=[...])`: the installed plugins that `plugins=None` loads, next to the others."""
ENV_NO_AUTOLOAD = "MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD"
ENV_ALLOW = "MCPBRIDGE_PLUGINS"
ENV_DENY = "MCPBRIDGE_DISABLED_PLUGINS"


class PluginHost:
    """The bridge's plugins, loaded and ordered, with one method per hook."""

    def __init__(
        self,
        settings: Settings,
        explicit: Sequence[object | str] | None = None,
        direct: Sequence[ToolCallInterceptor] = (),
    ) -> None:
        """`explicit`: `MCPBridge(plugins=...)`; `direct`: `MCPBridge(interceptors=...)`, which
        take their place in the chain as the built-in plugin `DIRECT`."""
        self.settings = settings
        self.manager = pluggy.PluginManager(hookspecs.PROJECT)
        self.manager.add_hookspecs(hookspecs)
        if tracing():
            self.manager.add_hookcall_monitoring(self._trace, lambda *_: None)
        self.infos: dict[str, PluginInfo] = {}
        self.contributed: dict[str, list[ToolCallInterceptor]] = {}
        self.claiming = Claiming()
        self._builtin: dict[str, object] = {CLAIMING: self.claiming, **({DIRECT: Direct(direct)} if direct else {})}
        self._loaded: list[tuple[object, str]] = []
        self.given: set[str] = set()
        """The plugins given as objects in `MCPBridge(plugins=[...])`."""
        self._available = {ep.name: ep for ep in importlib.metadata.entry_points(group=hookspecs.PROJECT)}
        names = [item if isinstance(item, str) else name_of(item) for item in explicit or ()]
        self._check_names([name for name in names if name != INSTALLED])
        if explicit is None or INSTALLED in names:
            self._load_selected()
        if explicit is not None:
            self._load_explicit(explicit)
        self.order = [*self._ordered(), CLAIMING]  # the claiming layer is pinned innermost
        self._register_in_order()
        artifacts = frozenset(kind for name in self.enabled for kind in self.declared(name).artifacts)
        self.context = BridgeContext(settings, tuple(self.order), artifacts)
        """What every hook gets as `context`; its `stash` lives as long as this host."""
        for position, name in enumerate(n for n in self.order if n in self.infos):
            self.infos[name].position = position

    def _load_explicit(self, explicit: Sequence[object | str]) -> None:
        available = self._available
        for item in explicit:
            if not isinstance(item, str):
                self.given.add(name_of(item))
                self._register(item, name_of(item), None)
            elif item not in available and item != INSTALLED:
                raise PluginError(self._unknown(item, "in MCPBridge(plugins=...)"))
            elif item in available and not (item in self.infos and self.infos[item].enabled):
                self._load(available[item], strict=True)
        for name, ep in available.items():
            self.infos.setdefault(name, PluginInfo.of(name, ep, "not in MCPBridge(plugins=...)"))

    def _load_selected(self) -> None:
        conf = self.settings.plugins
        allow = _split(os.environ.get(ENV_ALLOW)) or conf.enabled
        env_deny = set(_split(os.environ.get(ENV_DENY)))
        autoload = conf.autoload and not env_flag(ENV_NO_AUTOLOAD)
        for name, ep in sorted(self._available.items()):
            if name in env_deny or name in conf.disabled:
                reason = f"disabled ({ENV_DENY})" if name in env_deny else "disabled in [plugins] disabled"
                self.infos[name] = PluginInfo.of(name, ep, reason)
            elif allow is not None and name not in allow:
                self.infos[name] = PluginInfo.of(name, ep, "not in the enabled list")
            elif not autoload and allow is None:
                self.infos[name] = PluginInfo.of(name, ep, "plugin autoload is off")
            else:
                self._load(ep, strict=conf.strict or allow is not None)

    def _load(self, ep: importlib.metadata.EntryPoint, *, strict: bool) -> None:
        try:
            plugin = ep.load()
            self._register(plugin, ep.name, ep)
        except Exception as exc:
            dist = ep.dist.name if ep.dist else None
            message = (
                f"plugin {ep.name!r} (distribution {dist or 'unknown'}) failed to load: "
                f"{type(exc).__name__}: {exc}. Fix or uninstall it, or disable it with "
                f'{ENV_DENY}={ep.name} or `disabled = ["{ep.name}"]` in [plugins]'
            )
            if strict or isinstance(exc, PluginError):
                raise PluginError(message) from exc
            warnings.warn(message, RuntimeWarning, stacklevel=2)
            self.infos[ep.name] = PluginInfo.of(ep.name, ep, f"failed to load: {type(exc).__name__}: {exc}")

    def _register(self, plugin: object, name: str, ep: importlib.metadata.EntryPoint | None) -> None:
        declared = getattr(plugin, DECLARATION, None) or Plugin()
        if not isinstance(declared, Plugin):
            raise PluginError(
                f"plugin {name!r}: `{DECLARATION}` must be a `mcpbridge.Plugin(...)`, not a {type(declared).__name__}"
            )
        self.infos[name] = PluginInfo.of(name, ep, declared=declared)
        self._loaded.append((plugin, name))

    def _register_in_order(self) -> None:
        """Register the built-in and the loaded plugins with pluggy, innermost first."""
        plugins = {**self._builtin, **{name: plugin for plugin, name in self._loaded}}
        for name in reversed(self.order):
            plugin = plugins[name]
            try:
                hash(plugin)  # pluggy's subset_hook_caller keeps plugins in a set
                self.manager.register(plugin, name=name)
            except TypeError:
                raise PluginError(
                    f"plugin {name!r} is an unhashable {type(plugin).__name__}: give its class `__hash__` "
                    "(a dataclass: `eq=False` or `frozen=True`)"
                ) from None
            except pluggy.PluginValidationError as exc:
                raise PluginError(
                    f"plugin {name!r} is invalid: {exc} (a hook takes `context`, and mcpbridge_client_options also "
                    "`server_name` and `server`; read your table with `context.settings_of(YourSettings)`)"
                ) from None
            except ValueError as exc:
                raise PluginError(f"plugin {name!r} is registered twice: {exc}") from None
            if name in self.infos:
                self.infos[name].hooks = sorted(caller.name for caller in self.manager.get_hookcallers(plugin) or ())
        try:
            self.manager.check_pending()
        except pluggy.PluginValidationError as exc:
            name = self.manager.get_name(exc.plugin) or repr(exc.plugin)
            raise PluginError(
                f"plugin {name!r} implements a hook that does not exist: {exc} (check the name against docs/hooks.md)"
            ) from None

    def _check_names(self, given: Iterable[str]) -> None:
        conf = self.settings.plugins
        where = f" ({self.settings.source})" if self.settings.source else ""
        known = set(self._available) | set(given) | {DIRECT}
        for key, names in (("enabled", conf.enabled or []), ("disabled", conf.disabled), ("order", conf.order)):
            for name in names:
                if name not in known:
                    raise ConfigError(self._unknown(name, f"in [plugins] {key}{where}", known))
        for name in conf.sections:
            if name not in known:
                raise ConfigError(self._unknown(name, f"configured by [plugins.{name}]{where}", known))

    def _unknown(self, name: str, where: str, known: Iterable[str] = ()) -> str:
        """Why `name` is no plugin here: the closest known name, else how a published plugin of
        that name is installed (the core cannot know which exist), and the installed plugins."""
        hint = did_you_mean(name, {*self._available, *known} - {DIRECT}) or (
            f" (not installed: if it is a published plugin, `pip install mcpbridge-{name}`)"
        )
        installed = ", ".join(sorted(self._available)) or "none"
        return f"unknown plugin {name!r} {where}{hint}; installed plugins: {installed}"

    def _ordered(self) -> list[str]:
        declared = {name: info.declared for name, info in self.infos.items() if info.declared is not None}
        if DIRECT in self._builtin:
            declared[DIRECT] = Direct.mcpbridge_plugin
        explicit = [name for name in self.settings.plugins.order if name in declared]
        return chain_order(declared, explicit)

    def declared(self, name: str) -> Plugin:
        return getattr(self.infos.get(name), "declared", None) or Plugin()

    @property
    def enabled(self) -> list[str]:
        """The enabled plugins (not the built-in ones), in chain order."""
        return [name for name in self.order if name in self.infos]

    def configure(self) -> None:
        """Validate every plugin's settings (once), then call `mcpbridge_check_settings`."""
        tables = self.context.tables
        tables.clear()
        declaring: dict[type[BaseModel], str] = {}
        for name in self.enabled:
            if (model := self.declared(name).settings) is not None:
                if (other := declaring.setdefault(model, name)) != name:
                    raise PluginError(
                        f"plugins {other!r} and {name!r} both declare the settings model {model.__qualname__}: "
                        "each plugin declares a model of its own (a subclass will do)"
                    )
                tables[model] = self._parse(name, model)
        self._each("mcpbridge_check_settings")

    def interceptors(self) -> list[ToolCallInterceptor]:
        """Every plugin's interceptors (the built-in ones too), in chain order."""
        shape = "is not an `async (request, handler)` callable"
        self.contributed = self._provided("mcpbridge_interceptors", None, shape, many=True)
        return [ic for name in self.order for ic in self.contributed.get(name, ())]

    def list_interceptors(self) -> list[ToolListInterceptor]:
        """Every plugin's list interceptors (`mcpbridge_list_interceptors`), in chain order."""
        found = self._provided("mcpbridge_list_interceptors", None, "is not an `async (request, handler)`", many=True)
        return [interceptor for each in found.values() for interceptor in each]

    def client_options(self, server_name: str, server: ServerConfig) -> dict[str, Any]:
        """Merged `mcp.Client` options from every plugin for one server; a capability that a plugin
        given as an object answers is taken from the others (their option for it is dropped)."""
        merged: dict[str, Any] = {}
        owners: dict[str, str] = {}
        taken = {capability: name for name in sorted(self.given) for capability in self.declared(name).answers}
        answers = self._each("mcpbridge_client_options", server_name=server_name, server=server)
        for plugin, options in answers.items():
            for key, value in dict(options or {}).items():
                capability = CALLBACKS.get(key)
                if capability in taken and plugin not in self.given:
                    why = f"{capability} is answered by {taken[capability]!r}, given in MCPBridge(plugins=...)"
                    logger.debug("plugin %r: option %r for server %r dropped: %s", plugin, key, server_name, why)
                    continue
                if key in owners:
                    raise PluginError(
                        f"plugins {owners[key]!r} and {plugin!r} both set the mcp Client option "
                        f"{key!r} for server {server_name!r}; disable one of them"
                    )
                owners[key] = plugin
                merged[key] = value
        return merged

    def claim_store(self) -> ClaimStore:
        """The claim store the claiming layer uses: the one a plugin provides
        (`mcpbridge_claim_store`), else the process-wide `LocalClaims`."""
        lacks = "lacks `async claim(key, owner)`, `async release(key, owner)` or `async aclose()`"
        stores = self._provided("mcpbridge_claim_store", ClaimStore, lacks)
        if len(stores) > 1:
            first, second = list(stores)[:2]
            raise PluginError(
                f"plugins {first!r} and {second!r} both provide a claim store "
                "(mcpbridge_claim_store); enable only one of them"
            )
        self.claiming.store = next((store for (store,) in stores.values()), self.claiming.store)
        return self.claiming.store

    def observe(self) -> None:
        """Hand every plugin's listener for the bridge's own events (`mcpbridge_bridge_observer`)
        to `context.notify`."""
        found = self._provided("mcpbridge_bridge_observer", None, "is not an `(event, data) -> None` callable")
        self.context.observers[:] = [observer for observers in found.values() for observer in observers]

    def tool_reviews(self) -> list[hookspecs.ToolReview]:
        """Every plugin's review of the tool listings (`mcpbridge_tool_review`), in chain order."""
        lacks = "lacks `async review(server, tools)` or `left_out(server, name)`"
        return [review for (review,) in self._provided("mcpbridge_tool_review", hookspecs.ToolReview, lacks).values()]

    def status(self) -> dict[str, str]:
        """Each plugin's one line for `mcpbridge plugins` (`mcpbridge_status`)."""
        return {plugin: str(line) for plugin, line in self._each("mcpbridge_status").items() if line}

    async def teardown(self) -> None:
        """`mcpbridge_teardown` of every plugin; what they return is awaited innermost plugin first."""
        pending = self._each("mcpbridge_teardown")
        for awaitable in reversed(pending.values()):
            if awaitable is not None:
                await awaitable

    def unanswered(self, capability: Capability | None = None) -> str:
        """A hint for a server request that no plugin answered: the installed plugins that declare
        they answer it and why they did not (plugins not loaded are imported here, to read it)."""
        what = capability or "this client capability"
        answering = []
        for name, info in sorted(self.infos.items()):
            declared = info.declared or declaration_of(self._available[name])  # not loaded: installed
            if declared is not None and (capability in declared.answers if capability else declared.answers):
                why = info.reason or f"enabled: {declared.advice or 'but not for this server'}"
                answering.append(f"{name} ({'; '.join(filter(None, (info.distribution, why)))})")
        if not answering:
            return (
                f"no installed plugin answers {what}: install one that declares "
                f"`Plugin(answers=({what!r},))` (see `mcpbridge plugins`)"
            )
        return f"no plugin answered {what}; installed plugins that can: {', '.join(answering)}"

    def _parse(self, name: str, model: type[BaseModel]) -> BaseModel:
        try:
            return model.model_validate(self.context.section(name), context={"servers": self.settings.servers})
        except ValidationError as exc:
            where = f" in {self.settings.source}" if self.settings.source else ""
            problems = "; ".join(f"`plugins.{name}.{key}`: {message}" for key, message in validation_problems(exc))
            raise ConfigError(f"plugin {name!r}: invalid settings{where}: {problems}") from None

    def _provided(self, hook: str, kind: type | None, wrong: str, *, many: bool = False) -> dict[str, list[Any]]:
        """Each plugin's answers to `hook` (a sequence of them when `many`, else one or None),
        by plugin, leaving out plugins that gave none. Each must be a `kind` (None: a
        callable); one that is not is a `PluginError` saying what is `wrong` with it."""
        found: dict[str, list[Any]] = {}
        for plugin, answer in self._each(hook).items():
            items = list(answer or ()) if many else [] if answer is None else [answer]
            for item in items:
                if not (callable(item) if kind is None else isinstance(item, kind)):
                    shown = repr(item) if kind is None else type(item).__name__
                    raise PluginError(f"plugin {plugin!r} returned {shown} from {hook}, which {wrong}")
            if items:
                found[plugin] = items
        return found

    def _each(self, hook: str, **kwargs: Any) -> dict[str, Any]:
        """Call each plugin's implementation of `hook` on its own, in chain order, with the
        bridge's `context` and `kwargs`; each plugin's answer (None included)."""
        implementers = {impl.plugin_name: impl.plugin for impl in getattr(self.manager.hook, hook).get_hookimpls()}
        answers: dict[str, Any] = {}
        for name in (name for name in self.order if name in implementers):
            others = [plugin for other, plugin in implementers.items() if other != name]
            with _blamed(name, hook):
                found = self.manager.subset_hook_caller(hook, others)(context=self.context, **kwargs)
            answers[name] = found[0] if found else None
        return answers

    def _trace(self, hook: str, impls: Sequence[HookImpl], kwargs: Mapping[str, object]) -> None:
        """`MCPBRIDGE_TRACE_HOOKS=1`: one line per plugin a hook call reaches."""
        for impl in impls:
            position = self.order.index(impl.plugin_name) if impl.plugin_name in self.order else "-"
            print(f"mcpbridge hook: #{position} {impl.plugin_name}.{hook}", file=sys.stderr)


@contextmanager
def _blamed(plugin: str, hook: str) -> Iterator[None]:
    """An error a hook raises becomes a `PluginError` naming the plugin and the hook."""
    try:
        yield
    except (ConfigError, PluginError):
        raise
    except Exception as exc:
        raise PluginError(f"plugin {plugin!r} failed in {hook}: {type(exc).__name__}: {exc}") from exc


def _split(value: str | None) -> list[str]:
    return [part.strip() for part in (value or "").split(",") if part.strip()]


@dataclass(frozen=True)
class InstalledPlugins:
    """The plugins found for one `Settings`, loaded and ordered but not configured."""

    plugins: tuple[PluginInfo, ...]
    """Enabled ones in chain order, then the disabled ones by name."""
    chain: tuple[str, ...]
    """As `bridge.chain`: outermost first, the core's own `"claiming"` layer innermost."""
    claim_store_from: str | None
    """The enabled plugin whose `mcpbridge_claim_store` is used (None: the process's `LocalClaims`)."""
    _host: PluginHost = field(repr=False, compare=False)

    def status(self) -> dict[str, str]:
        """Check each enabled plugin's settings (`mcpbridge_check_settings`), then ask its one
        line of status (`mcpbridge_status`). Raises what a plugin's check raises."""
        self._host.configure()
        return self._host.status()


def installed_plugins(settings: Settings | None = None) -> InstalledPlugins:
    """The installed plugins as a bridge with `settings` (default: `Settings()`) would load
    them: enabled or disabled (and why), their hooks, positions and declarations."""
    host = PluginHost(settings if settings is not None else Settings())
    rows = sorted(host.infos.values(), key=lambda i: (i.position is None, i.position or 0, i.name))
    store_from = next((info.name for info in rows if info.enabled and "mcpbridge_claim_store" in info.hooks), None)
    return InstalledPlugins(tuple(rows), tuple(host.order), store_from, host)
