"""What a plugin declares about itself: where its interceptors sit in the chain, its
settings model, the client capabilities it answers and the artifact entries it adds.

    mcpbridge_plugin = Plugin(settings=Settings, position=40, after=("approval",))

The core reads the module (or object) attribute `mcpbridge_plugin`; a plugin without one
gets `Plugin()`: no settings model, position 50, no capability.
"""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from mcpbridge._base.protocol import Capability

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
