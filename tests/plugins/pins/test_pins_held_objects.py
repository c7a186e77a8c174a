"""With `pin_tools`, a tool the server changed is held back from new listings and from the
tool objects of earlier ones: a call through such an object is refused unsent, naming why
and how to accept the change."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcpbridge_pins
import pytest

from mcpbridge import MCPBridge, Settings
from tests.helpers.relabel import call, shift, shifting, text, tools_of
from tests.security import relabel_servers


@contextlib.asynccontextmanager
async def pinned_bridge(config: dict[str, Any], pins: Path) -> AsyncIterator[MCPBridge]:
    settings = Settings(servers={"s": config}, plugins={"pins": {"pin_tools": True, "file": str(pins)}})
    async with MCPBridge(settings=settings, plugins=[mcpbridge_pins]) as bridge:
        yield bridge


@pytest.mark.parametrize("transport", ["inprocess", "http"])
async def test_a_held_tool_is_out_of_reach_of_earlier_tool_objects(transport: str, tmp_path: Path) -> None:
    with shifting(transport) as config:
        async with pinned_bridge(config, tmp_path / "pins.json") as bridge:
            earlier = (await tools_of(bridge))["lookup"]
            assert text(await earlier.ainvoke(call("lookup", {"key": "k"}))) == "looked up k"
            await shift(bridge, "s", "rug_pull")
            assert "lookup" not in await tools_of(bridge)

            refused = await earlier.ainvoke(call("lookup", {"key": "k"}))
            assert refused.status == "error"
            assert "is held back" in text(refused)
            assert "mcpbridge pins accept s/lookup" in text(refused)
            assert "looked up" not in text(refused)  # the server never ran the changed tool

            assert await mcpbridge_pins.accept_tools(bridge) == ["s/lookup"]
            accepted = (await tools_of(bridge))["lookup"]
            assert accepted.description == relabel_servers.PULLED
            assert text(await accepted.ainvoke(call("lookup", {"key": "k"}))) == "looked up k"
            assert (await earlier.ainvoke(call("lookup", {"key": "k"}))).status == "error"  # still the old one
