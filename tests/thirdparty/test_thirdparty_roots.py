"""npm server-everything reads the client's roots when it first needs them and again on
every `notifications/roots/list_changed`: its `get-roots-list` tool shows what it read."""

from __future__ import annotations

from typing import Any

import mcpbridge_roots
import pytest

from mcpbridge import MCPBridge
from tests.helpers.waiting import until

from .support import invoke, text, tools_of


@pytest.fixture(params=["stdio", "http"])
def everything(request: pytest.FixtureRequest, everything_stdio: dict[str, Any]) -> dict[str, Any]:
    if request.param == "stdio":
        return everything_stdio
    config: dict[str, Any] = request.getfixturevalue("everything_http").config
    return config


async def shown_roots(bridge: MCPBridge) -> str:
    message = await invoke(bridge, "get-roots-list", {})
    assert message.status == "success", message.content
    return text(message)


async def test_everything_reads_the_roots_and_their_changes(everything: dict[str, Any]) -> None:
    roots = ["file:///srv/project", {"uri": "file:///home/ann/notes", "name": "notes"}]
    settings = {"roots": {"servers": {"everything": roots}}}
    async with MCPBridge({"everything": everything}, plugin_settings=settings) as bridge:
        first = await shown_roots(bridge)
        assert "Current MCP Roots (2 total)" in first
        assert "URI: file:///srv/project" in first
        assert "notes\n   URI: file:///home/ann/notes" in first
        await mcpbridge_roots.set_roots(bridge, "everything", [{"uri": "file:///srv/other", "name": "other"}])
        shown: list[str] = []

        async def listed_again() -> bool:  # the server asks roots/list again when notified
            shown.append(await shown_roots(bridge))
            return "(1 total)" in shown[-1]

        await until(listed_again, "the server reading the changed roots")
        now = shown[-1]
        assert "other\n   URI: file:///srv/other" in now
        assert "file:///srv/project" not in now


async def test_without_roots_everything_offers_no_roots_tool(everything: dict[str, Any]) -> None:
    async with MCPBridge({"everything": everything}) as bridge:
        assert "get-roots-list" not in await tools_of(bridge)
