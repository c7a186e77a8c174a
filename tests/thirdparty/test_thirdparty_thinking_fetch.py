"""npm `@modelcontextprotocol/server-sequential-thinking` and PyPI `mcp-server-fetch`
(fetching a page served on loopback), as an agent's tools would call them."""

from __future__ import annotations

import json

import pytest

from mcpbridge import MCPBridge
from tests.helpers.thirdparty import HERE, node_stdio, python_server

from .support import invoke, text, tools_of

THINKING = (
    HERE / ".node" / "node_modules" / "@modelcontextprotocol" / "server-sequential-thinking" / "dist" / "index.js"
)
FETCH = "2026.10.24"

pytestmark = pytest.mark.slow  # each test starts servers (and the CLI) of its own


async def test_sequential_thinking() -> None:
    async with MCPBridge(
        {"think": node_stdio(THINKING, env={"DISABLE_THOUGHT_LOGGING": "true"})}, plugins=[]
    ) as bridge:
        tool = (await tools_of(bridge))["sequentialthinking"]
        assert {"thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts"} <= set(tool.args_schema["required"])
        for number in (1, 2):
            thought = {"thought": f"step {number}", "nextThoughtNeeded": number < 2, "thoughtNumber": number}
            message = await invoke(bridge, "sequentialthinking", {**thought, "totalThoughts": 2}, f"c{number}")
            assert message.status == "success", text(message)
            said = json.loads(text(message))
            assert said["thoughtNumber"] == number
            assert said["thoughtHistoryLength"] == number


async def test_fetch_a_local_page(local_site: str) -> None:
    server = python_server("mcp-server-fetch", FETCH, "--ignore-robots-txt", "--allow-private-ips")
    async with MCPBridge({"fetch": server}, plugins=[]) as bridge:
        page = await invoke(bridge, "fetch", {"url": local_site})
        assert page.status == "success", text(page)  # refused without --allow-private-ips
        assert "Hello from the local page" in text(page)
        assert "forty-two" in text(page)
        assert "<button" not in text(page)  # as Markdown

        missing = await invoke(bridge, "fetch", {"url": local_site + "nowhere.html"}, "c2")
        assert missing.status == "error"
        assert "404" in text(missing)
