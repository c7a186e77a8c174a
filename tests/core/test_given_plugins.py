"""Plugin objects given next to the installed plugins (`MCPBridge(plugins=["*", obj])`), and
the capability such an object declares it answers: it takes it from the installed ones."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from mcpbridge import MCPBridge, Plugin, PluginError, hookimpl
from tests.servers import basic


class Answers:
    """A plugin object that gives the mcp `elicitation_callback` (and declares it, or not)."""

    def __init__(self, name: str, *, declares: bool = True) -> None:
        self.mcpbridge_name = name
        self.mcpbridge_plugin = Plugin(answers=("elicitation",) if declares else ())

    @hookimpl
    def mcpbridge_client_options(self, server_name: str) -> dict[str, Any]:
        return {"elicitation_callback": self.answer}

    async def answer(self, context: Any, params: Any) -> None:
        """Never called: the tests only look at which callback the server's client gets."""


@pytest.fixture
def only_elicitation(monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed plugins that autoload: just mcpbridge-elicitation."""
    monkeypatch.delenv("MCPBRIDGE_DISABLED_PLUGINS", raising=False)
    monkeypatch.delenv("MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.setenv("MCPBRIDGE_PLUGINS", "elicitation")


def options(bridge: MCPBridge) -> dict[str, Any]:
    return bridge._host.client_options("s", bridge.settings.servers["s"])


def test_star_loads_the_installed_plugins_next_to_the_objects(only_elicitation: None) -> None:
    mine = Answers("mine")
    assert MCPBridge({}, plugins=["*", mine]).chain == ("elicitation", "mine", "claiming")
    assert MCPBridge({}, plugins=["*", "elicitation"]).chain == ("elicitation", "claiming")
    assert MCPBridge({}, plugins=[mine]).chain == ("mine", "claiming")


def test_a_given_plugin_takes_the_capability_it_answers(
    only_elicitation: None, caplog: pytest.LogCaptureFixture
) -> None:
    mine = Answers("mine")
    for plugins in (["*", mine], ["elicitation", mine]):
        with caplog.at_level(logging.DEBUG, logger="mcpbridge._platform.plugins"):
            bridge = MCPBridge({"s": basic.build()}, plugins=plugins)
            assert options(bridge)["elicitation_callback"] == mine.answer
        assert "plugin 'elicitation': option 'elicitation_callback' for server 's' dropped" in caplog.text
        assert "elicitation is answered by 'mine', given in MCPBridge(plugins=...)" in caplog.text


def test_without_a_declaration_or_between_given_plugins_it_is_still_a_conflict(only_elicitation: None) -> None:
    both = "both set the mcp Client option 'elicitation_callback'"
    with pytest.raises(PluginError, match=f"plugins 'elicitation' and 'mine' {both}"):
        options(MCPBridge({"s": basic.build()}, plugins=["*", Answers("mine", declares=False)]))
    with pytest.raises(PluginError, match=f"plugins 'a' and 'b' {both}"):
        options(MCPBridge({"s": basic.build()}, plugins=[Answers("a"), Answers("b")]))
