"""The pins plugin keeps a bounded number of tool definitions per server (`max_tools`): a
server that renames its tools at every listing grows neither the pins file nor the bridge's
memory of definitions, and the tools past the bound are left out, unpinned, saying why."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import mcpbridge_pins
import pytest

from mcpbridge import ConfigError, MCPBridge, Settings
from tests.helpers.relabel import logged
from tests.security.definition_servers import Renaming

TOOLS = 500
MAX_TOOLS = 1200


def pinned_bridge(server: Renaming, pins: Path, **table: object) -> MCPBridge:
    table = {"pin_tools": True, "file": str(pins), **table}
    settings = Settings(servers={"s": {"server": server}}, plugins={"pins": table})
    return MCPBridge(settings=settings, plugins=[mcpbridge_pins])


async def test_a_renaming_server_grows_neither_the_pins_file_nor_the_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    pins = tmp_path / "pins.json"
    server = Renaming(TOOLS)
    async with pinned_bridge(server, pins, max_tools=MAX_TOOLS) as bridge:
        offered = [len(await bridge.list_tools(refresh=True)) for _ in range(10)]
        # 1,200 pins: two listings pinned whole, 200 of the third; the rest are left out, unpinned.
        assert offered == [500, 500, 200, 0, 0, 0, 0, 0, 0, 0]
        assert len(json.loads(pins.read_text())["servers"]["s"]) == MAX_TOOLS
        remembered = bridge.context.stash[mcpbridge_pins.DEFINITIONS]._known["s"]
        assert len(remembered) <= MAX_TOOLS
        assert {f"t{index}_{server.listings}" for index in range(TOOLS)} <= remembered.keys()
        assert logged(caplog, "server 's' lists 500 tools past the 1200 its pins may hold (max_tools)")
        with pytest.raises(ConfigError, match=r"tool 't0_\d+' of server 's' is left out unpinned: .*max_tools = 1200"):
            await bridge.call_tool("s", f"t0_{server.listings}")
        assert mcpbridge_pins.held_tools(bridge) == ()  # unpinned is not changed: nothing to accept


async def test_without_pinning_the_memory_of_definitions_is_bounded_too() -> None:
    server = Renaming(TOOLS)
    table = {"pins": {"max_tools": MAX_TOOLS}}
    async with MCPBridge({"s": {"server": server}}, plugins=[mcpbridge_pins], plugin_settings=table) as bridge:
        for _ in range(10):
            assert len(await bridge.list_tools(refresh=True)) == TOOLS  # nothing pinned, nothing left out
        remembered = bridge.context.stash[mcpbridge_pins.DEFINITIONS]._known["s"]
        assert len(remembered) == MAX_TOOLS  # the latest listing's 500, and 700 of the 4,500 before
        assert {f"t{index}_{server.listings}" for index in range(TOOLS)} <= remembered.keys()


def test_max_tools_must_be_positive() -> None:
    settings = Settings(servers={"s": {"url": "http://x/mcp"}}, plugins={"pins": {"max_tools": 0}})
    with pytest.raises(ConfigError, match=r"plugins.pins.max_tools"):
        MCPBridge(settings=settings, plugins=[mcpbridge_pins])
