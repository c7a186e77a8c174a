"""The template's own tests, with the pytest fixtures that come with mcpbridge
(docs/testing-plugins.md): real in-process MCP servers, the plugin module passed in."""

from __future__ import annotations

from typing import Any

import mcpbridge_template
import pytest

from mcpbridge import ConfigError, ToolCallHandler, ToolCallRequest


async def test_prefixes_the_selected_tools(mcp_server: Any, mcpbridge_factory: Any, tool_call: Any) -> None:
    def shout(text: str) -> str:
        return text.upper()

    def whisper(text: str) -> str:
        return text.lower()

    settings = {"template": {"prefix": "> ", "tools": [{"tool": "shout"}]}}
    servers = {"demo": mcp_server(shout, whisper)}
    async with mcpbridge_factory(servers, plugins=[mcpbridge_template], plugin_settings=settings) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        loud = await tools["shout"].ainvoke(tool_call(tools["shout"], {"text": "hi"}))
        quiet = await tools["whisper"].ainvoke(tool_call(tools["whisper"], {"text": "HI"}))
    assert loud.content[0]["text"] == "> HI"
    assert quiet.content[0]["text"] == "hi"
    assert "template" in tools["shout"].chain
    assert "template" not in tools["whisper"].chain  # its calls never pass through the plugin


async def test_the_result_is_a_new_one_and_the_inner_layers_keep_theirs(
    mcp_server: Any, mcpbridge_factory: Any, tool_call: Any
) -> None:
    def shout(text: str) -> str:
        return text.upper()

    kept: list[Any] = []

    async def keep(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        """Innermost (`MCPBridge(interceptors=...)`): holds on to what the server answered."""
        kept.append(await handler(request))
        return kept[-1]

    settings = {"template": {"prefix": "> "}}
    async with mcpbridge_factory(
        {"demo": mcp_server(shout)}, plugins=[mcpbridge_template], plugin_settings=settings, interceptors=[keep]
    ) as bridge:
        [tool] = await bridge.list_tools()
        message = await tool.ainvoke(tool_call(tool, {"text": "hi"}))
    assert message.content[0]["text"] == "> HI"
    assert kept[0].content[0].text == "HI"


async def test_a_bad_setting_is_refused(mcp_server: Any, mcpbridge_factory: Any) -> None:
    def echo(text: str) -> str:
        return text

    settings = {"template": {"tools": [{"server": "dmeo"}]}}
    with pytest.raises(ConfigError, match=r"plugins\.template\.tools\.0.*matches no configured server"):
        async with mcpbridge_factory(
            {"demo": mcp_server(echo)}, plugins=[mcpbridge_template], plugin_settings=settings
        ):
            pass
