"""The guard refuses what its rules deny, and with `read_only` every tool not marked read-only."""

import mcpbridge_guard
import pytest
from mcp.types import ToolAnnotations


def get_user(id: int) -> str:
    return f"user {id}"


def block_user(id: int) -> str:
    return f"blocked {id}"


def delete_user(id: int) -> str:
    return f"deleted {id}"


READ_ONLY = {"get_user": ToolAnnotations(read_only_hint=True)}
DENY, ONLY_READ = {"deny": [{"tool": "delete_*"}]}, {"read_only": True}


@pytest.mark.parametrize(("settings", "allowed"), [(DENY, ["block_user", "get_user"]), (ONLY_READ, ["get_user"])])
async def test_guard(settings, allowed, mcp_server, mcpbridge_factory, tool_call):
    servers = {"crm": mcp_server(get_user, block_user, delete_user, annotations=READ_ONLY)}
    async with mcpbridge_factory(servers, plugins=[mcpbridge_guard], plugin_settings={"guard": settings}) as bridge:
        answers = {tool.name: await tool.ainvoke(tool_call(tool, {"id": 7})) for tool in await bridge.list_tools()}
    assert sorted(name for name, message in answers.items() if message.status == "success") == allowed
    assert answers["delete_user"].text == "tool 'delete_user' is not allowed"
