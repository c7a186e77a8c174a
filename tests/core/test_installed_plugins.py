"""`mcpbridge.installed_plugins`: the installed plugins as a bridge with the same settings
loads them, for tools that list them without building a bridge (mcpbridge-cli)."""

from __future__ import annotations

from mcpbridge import MCPBridge, Settings, installed_plugins


def test_the_view_matches_the_bridge() -> None:
    settings = Settings(plugins={"disabled": ["retry"]})
    installed = installed_plugins(settings)
    bridge = MCPBridge({}, settings=settings)
    assert installed.chain == bridge.chain
    assert installed.chain[-1] == "claiming"
    enabled = [info.name for info in installed.plugins if info.enabled]
    assert enabled == [name for name in bridge.chain if name != "claiming"]
    retry = next(info for info in installed.plugins if info.name == "retry")
    assert retry.position is None
    assert installed.plugins[-1].enabled is False  # the disabled ones come last
    assert installed.claim_store_from == ("claims" if "claims" in enabled else None)
    assert set(installed.status()) <= set(enabled)
