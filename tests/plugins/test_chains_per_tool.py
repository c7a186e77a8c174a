"""With every plugin installed, a tool's calls pass only the plugins with work for that
tool: nothing configured leaves approval (but for destructive tools), the cache, headers,
tasks and roots off the chain; configuring one puts it on the chains of the tools it serves."""

from __future__ import annotations

from typing import Any

from mcpbridge import MCPBridge, MCPTool
from tests.servers import basic
from tests.servers.tasks_server import build as tasks_server

OFF_WHEN_UNCONFIGURED = {"approval", "cache", "headers", "tasks", "roots"}


async def chains(servers: dict[str, Any], **options: Any) -> dict[str, tuple[str, ...]]:
    async with MCPBridge(servers, **options) as bridge:
        tools: list[MCPTool] = await bridge.list_tools()
        assert set(bridge.chain) >= OFF_WHEN_UNCONFIGURED  # installed and enabled, all of them
        return {tool.name: tool.chain for tool in tools}


async def test_unconfigured_plugins_are_not_on_a_read_only_tools_chain() -> None:
    chain = (await chains({"s": {"server": basic.build()}}))["echo"]
    assert not OFF_WHEN_UNCONFIGURED & set(chain)
    assert chain[-1] == "claiming"
    assert "retry" in chain


async def test_approval_gates_destructive_tools_only() -> None:
    found = await chains({"s": {"server": basic.build()}})
    assert "approval" in found["die"]  # destructiveHint: true
    assert "approval" not in found["echo"]  # readOnlyHint: true


async def test_configured_plugins_join_the_chains_of_the_tools_they_serve(http_url: str) -> None:
    found = await chains(
        {"s": {"server": basic.build()}, "t": {"url": http_url}},
        tool_name_prefix=True,
        plugin_settings={
            "cache": {"rules": [{"server": "s", "tool": "echo"}]},
            "headers": {"servers": {"t": {"x-user": "context.user"}}},
            "retry": {"rules": [{"server": "s", "tool": "divide", "enabled": False}]},
        },
    )
    assert "cache" in found["s_echo"]
    assert "cache" in found["s_divide"]
    assert "cache" not in found["t_echo"]
    assert "headers" in found["t_echo"]
    assert "headers" not in found["s_echo"]
    assert "retry" not in found["s_divide"]
    assert "retry" in found["t_divide"]


async def test_tasks_is_on_the_chains_of_task_tools_only() -> None:
    server, _ = tasks_server()
    found = await chains({"tasks": {"server": server, "mode": "legacy"}})
    assert "tasks" in found["report"]  # taskSupport: required
    assert "tasks" not in found["quick"]  # optional, and no rule asks for it
    assert "tasks" not in found["task_log"]
