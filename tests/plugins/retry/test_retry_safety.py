"""What retry must never repeat (interrupts, cancellation), how it is configured and found."""

from __future__ import annotations

import asyncio
from typing import Any

import mcpbridge_retry
import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, interrupt

from mcpbridge import ConfigError, MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import ScriptedChatModel, make_tool_call, tool_call_turn
from tests.plugins.retry.servers import Flaky


def retry_bridge(settings: dict[str, Any]) -> MCPBridge:
    return MCPBridge(
        {"crm": {"server": Flaky(0).server}}, plugins=[mcpbridge_retry], plugin_settings={"retry": settings}
    )


async def test_an_interrupt_inside_retry_is_neither_swallowed_nor_repeated() -> None:
    flaky = Flaky(k=0)
    entered: list[str] = []

    async def ask_first(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        entered.append(request.name)
        answer = interrupt({"question": f"run {request.name}?"})
        return await handler(request.override(args={**request.args, "name": f"{request.args['name']}-{answer}"}))

    # Direct interceptors sit inside every plugin, so the interrupt is raised inside retry.
    async with MCPBridge(
        {"reports": {"server": flaky.server}},
        plugins=[mcpbridge_retry],
        interceptors=[ask_first],
        plugin_settings={"retry": {"initial": 0}},
    ) as bridge:
        model = ScriptedChatModel(turns=[tool_call_turn(("read_report", {"name": "q3"}))])
        agent = create_agent(model, await bridge.list_tools(), checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        paused = await agent.ainvoke({"messages": [("user", "go")]}, config)
        assert paused["__interrupt__"][0].value == {"question": "run read_report?"}
        assert entered == ["read_report"]
        assert "read_report" not in flaky.calls
        done = await agent.ainvoke(Command(resume="yes"), config)
    [message] = [m for m in done["messages"] if isinstance(m, ToolMessage)]
    assert message.content[0]["text"] == "report q3-yes"
    assert entered == ["read_report", "read_report"]  # once per run of the tool, never per retry
    assert flaky.calls["read_report"] == 1


async def test_cancellation_is_not_retried() -> None:
    flaky = Flaky(k=0)
    async with MCPBridge({"reports": {"server": flaky.server}}, plugins=[mcpbridge_retry]) as bridge:
        [hang] = [t for t in await bridge.list_tools() if t.name == "hang"]
        task = asyncio.create_task(hang.ainvoke(make_tool_call(hang, {})))
        await flaky.hanging.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0.3)
    assert flaky.calls["hang"] == 1


async def test_disabled_for_one_tool_and_found_through_its_entry_point() -> None:
    flaky = Flaky(k=1)
    settings = {"retry": {"initial": 0, "rules": [{"server": "reports", "tool": "read_report", "enabled": False}]}}
    bridge = MCPBridge(
        {"reports": {"server": flaky.server, "timeout": 0.2}}, plugins=["retry"], plugin_settings=settings
    )
    assert bridge.chain == ("retry", "claiming")
    async with bridge:
        [read] = [t for t in await bridge.list_tools() if t.name == "read_report"]
        message = await read.ainvoke(make_tool_call(read, {"name": "x"}))
    assert message.status == "error"
    assert not [e for e in message.artifact if e["type"] == "mcpbridge_retry"]
    assert flaky.calls["read_report"] == 1


def test_every_matching_rule_applies_in_order_by_mcp_tool_name() -> None:
    settings = {
        "attempts": 4,
        "max": 1.5,
        "rules": [
            {"server": "crm", "attempts": 6, "on_timeout": False},
            {"server": "crm", "tool": "create", "attempts": 2, "idempotent": True},
            {"server": "c*", "tool": "get_*", "max": 0.5},
        ],
    }
    bridge = retry_bridge(settings)
    [interceptor, _claiming] = bridge.interceptors
    assert isinstance(interceptor, mcpbridge_retry.RetryInterceptor)
    create = interceptor.policy("crm", "create")
    other = interceptor.policy("crm", "read")
    getter = interceptor.policy("crm", "get_account")
    assert (create.attempts, create.max, create.on_timeout, create.idempotent) == (2, 1.5, False, True)
    assert (other.attempts, other.max, other.idempotent) == (6, 1.5, None)
    assert (getter.attempts, getter.max, getter.on_timeout) == (6, 0.5, False)
    assert interceptor.policy("elsewhere", "create").attempts == 4
    assert interceptor.policy("crm", "create") is create  # resolved once per (server, tool)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"attempts": 0}, r"`plugins.retry.attempts`: Input should be greater than or equal to 1"),
        ({"error_patterns": ["("]}, r"`plugins.retry.error_patterns.0`: .*not a valid regular expression"),
        ({"rules": [{"server": "nope"}]}, r"pattern 'nope' matches no configured server; configured servers: crm"),
        ({"rules": [{"tool": "x", "retries": 3}]}, r"`plugins.retry.rules.0.retries`: unknown"),
        ({"servers": {"crm": {}}}, r"`plugins.retry.servers`: unknown"),
    ],
)
def test_config_errors_name_the_key(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        retry_bridge(settings)
