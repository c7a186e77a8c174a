"""The bridge's public door to its sessions: `servers` and `session(server)`."""

from __future__ import annotations

import pytest
from mcp import ClientSession

from mcpbridge import ConfigError, MCPBridge
from tests.servers import basic


def bridge_of_two() -> MCPBridge:
    return MCPBridge({"zeta": {"server": basic.build()}, "alpha": {"server": basic.build()}}, plugins=[])


def test_servers_are_the_configured_names_in_config_order() -> None:
    assert bridge_of_two().servers == ("zeta", "alpha")


async def test_session_is_live_and_shared_with_tool_calls() -> None:
    async with bridge_of_two() as bridge:
        session = await bridge.session("alpha")
        assert isinstance(session, ClientSession)
        assert "echo" in {tool.name for tool in (await session.list_tools()).tools}
        message = await bridge.call_tool("alpha", "echo", {"text": "hi"})
        assert message.content[0]["text"] == "hi"
        assert await bridge.session("alpha") is session


async def test_session_of_an_unknown_server_names_the_known_ones() -> None:
    async with bridge_of_two() as bridge:
        with pytest.raises(ConfigError, match="unknown server 'nope'; configured servers: zeta, alpha"):
            await bridge.session("nope")
