"""A server written with the official TypeScript SDK (`servers/ts_sdk_server.cjs`): what it
says about its tools (title, icons, output schema, `_meta`) reaches LangChain, and its image
and resource-link results reach the model as content blocks."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from mcpbridge import MCPBridge
from tests.helpers.thirdparty import HERE, node_stdio

from .support import invoke, structured, text, tools_of


@pytest.fixture
def ts_server() -> dict[str, Any]:
    modules = HERE / ".node" / "node_modules"
    return node_stdio(HERE / "servers" / "ts_sdk_server.cjs", env={"NODE_PATH": str(modules)})


async def test_tool_descriptions_reach_langchain(ts_server: dict[str, Any]) -> None:
    async with MCPBridge({"ts": ts_server}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        weather = tools["weather"].metadata
        assert weather["title"] == "Weather report"
        icon = {"src": "https://example.com/weather.png", "mimeType": "image/png", "sizes": ["48x48"]}
        assert weather["icons"] == [icon]
        assert weather["output_schema"]["required"] == ["city", "celsius"]
        assert weather["mcp_meta"] == {"example.com/owner": "weather-team"}
        assert tools["picture"].metadata["title"] == "picture"  # no title given: the name

        report = await invoke(bridge, "weather", {"city": "Oslo"})
        assert report.status == "success", text(report)
        assert structured(report) == {"city": "Oslo", "celsius": 21.5}


async def test_image_and_resource_link_results(ts_server: dict[str, Any]) -> None:
    async with MCPBridge({"ts": ts_server}, plugins=[]) as bridge:
        message = await invoke(bridge, "picture", {})
        assert message.status == "success", text(message)
        image, link = message.content
        assert isinstance(image, dict)
        assert isinstance(link, dict)
        assert image["type"] == "image"
        assert image["mime_type"] == "image/png"
        assert base64.b64decode(image["base64"]).startswith(b"\x89PNG")
        assert link["type"] == "image"
        assert link["url"] == "https://example.com/pictures/red.png"
        assert link["extras"] == {"name": "red.png", "title": "A red pixel"}
