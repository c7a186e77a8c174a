"""npm `@playwright/mcp` driving Debian's Chromium (headless, never a browser download):
browse a local page, click, and a screenshot reaches the model as an `image` block."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest

from mcpbridge import MCPBridge
from tests.helpers.thirdparty import HERE, node_stdio

from .support import invoke, text, tools_of

PLAYWRIGHT = HERE / ".node" / "node_modules" / "@playwright" / "mcp" / "cli.js"

pytestmark = [pytest.mark.slow, pytest.mark.chromium]


def playwright(chromium: str, out: Path) -> dict[str, Any]:
    """Headless, a fresh profile, files (snapshots, logs) in `out`, snapshots in the results."""
    flags = ["--headless", "--isolated", "--no-sandbox", "--snapshot-mode", "full", "--output-dir", str(out)]
    return node_stdio(PLAYWRIGHT, *flags, "--executable-path", chromium, cwd=str(out))


async def test_browse_click_and_screenshot(chromium: str, local_site: str, tmp_path: Path) -> None:
    async with MCPBridge({"browser": playwright(chromium, tmp_path)}, plugins=[]) as bridge:
        opened = await invoke(bridge, "browser_navigate", {"url": local_site})
        assert opened.status == "success", text(opened)
        assert "Local test page" in text(opened)
        page = await invoke(bridge, "browser_snapshot", {}, "c1")
        button = re.search(r'button "Press me" \[ref=(\w+)\]', text(page))
        assert button, text(page)

        clicked = await invoke(bridge, "browser_click", {"element": "Press me button", "target": button[1]}, "c2")
        assert clicked.status == "success", text(clicked)
        after = await invoke(bridge, "browser_snapshot", {}, "c3")
        assert "clicked!" in text(after)
        assert "not yet" not in text(after)

        shot = await invoke(bridge, "browser_take_screenshot", {"type": "png"}, "c4")
        assert shot.status == "success", text(shot)
        images = [block for block in shot.content if isinstance(block, dict) and block["type"] == "image"]
        assert len(images) == 1
        assert images[0]["mime_type"] == "image/png"
        assert base64.b64decode(images[0]["base64"]).startswith(b"\x89PNG")


async def test_required_fields_with_defaults_are_filled(chromium: str, tmp_path: Path) -> None:
    """Playwright lists `level` (console messages) and `scale` (screenshot) as required, with
    a default, and accepts calls without them: so does the bridge, sending the default. The
    tool's MCP title and output schema reach LangChain's metadata."""
    async with MCPBridge({"browser": playwright(chromium, tmp_path)}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        console = tools["browser_console_messages"]
        assert "level" in console.args_schema["required"]
        assert console.metadata["title"] == "Get console messages"  # from annotations.title
        assert console.metadata["output_schema"] is None
        assert console.metadata["icons"] == []

        messages = await invoke(bridge, "browser_console_messages", {})
        assert messages.status == "success", text(messages)
        assert "Total messages: 0" in text(messages)
