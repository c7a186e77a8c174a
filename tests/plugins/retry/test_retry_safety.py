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
from mcpbridge.demo.model import ScriptedChatModel, tool_call_turn
from mcpbridge.testing import make_tool_call
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
    settings = {"retry": {"initial": 0, "servers": {"reports": {"tools": {"read_report": {"enabled": False}}}}}}
    bridge = MCPBridge(
        {"reports": {"server": flaky.server, "timeout": 0.2}}, plugins=["retry"], plugin_settings=settings
    )
    assert bridge.plugins.enabled == ["retry"]
    async with bridge:
        [read] = [t for t in await bridge.list_tools() if t.name == "read_report"]
        message = await read.ainvoke(make_tool_call(read, {"name": "x"}))
    assert message.status == "error"
    assert not [e for e in message.artifact if e["type"] == "mcpbridge_retry"]
    assert flaky.calls["read_report"] == 1


def test_policy_levels_override_each_other_by_mcp_tool_name() -> None:
    settings = {
        "attempts": 4,
        "max": 1.5,
        "servers": {
            "crm": {"attempts": 6, "on_timeout": False, "tools": {"create": {"attempts": 2, "idempotent": True}}}
        },
    }
    bridge = retry_bridge(settings)
    [interceptor] = bridge.interceptors
    assert isinstance(interceptor, mcpbridge_retry.RetryInterceptor)
    create = interceptor.policy("crm", "create")
    other = interceptor.policy("crm", "read")
    assert (create.attempts, create.max, create.on_timeout, create.idempotent) == (2, 1.5, False, True)
    assert (other.attempts, other.idempotent) == (6, None)
    assert interceptor.policy("elsewhere", "create").attempts == 4


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"attempts": 0}, r"`plugins.retry.attempts`: Input should be greater than or equal to 1"),
        ({"error_patterns": ["("]}, r"`plugins.retry.error_patterns`: .*not a valid regular expression"),
        ({"servers": {"nope": {}}}, r"\[plugins.retry.servers.nope\] .* not configured; configured servers: crm"),
        (
            {"servers": {"crm": {"tools": {"x": {"retries": 3}}}}},
            r"`plugins.retry.servers.crm.tools.x.retries`: unknown",
        ),
    ],
)
def test_config_errors_name_the_key(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        retry_bridge(settings)
