"""The installed plugins as a bridge with given settings would load them: what a tool that
lists them (`mcpbridge plugins`, from the mcpbridge-cli distribution) shows, without
building a bridge. Imports neither mcp nor LangChain, so listing stays quick."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcpbridge._base.config import Settings
from mcpbridge._platform.declaration import PluginInfo
from mcpbridge._platform.plugins import PluginHost


@dataclass(frozen=True)
class InstalledPlugins:
    """The plugins found for one `Settings`, loaded and ordered but not configured."""

    plugins: tuple[PluginInfo, ...]
    """Enabled ones in chain order, then the disabled ones by name."""
    chain: tuple[str, ...]
    """As `bridge.chain`: outermost first, the core's own `"claiming"` layer innermost."""
    claim_store_from: str | None
    """The enabled plugin whose `mcpbridge_claim_store` the claiming layer uses (None: the
    process-wide `LocalClaims`)."""
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
