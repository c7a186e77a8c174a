"""Elicitation over streamable HTTP and stdio (modern protocol), and the legacy path."""

from __future__ import annotations

from typing import Any

import mcpbridge_elicitation
import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from mcp.types import ElicitRequestFormParams, ElicitResult
from mcpbridge_elicitation import create_elicitation_resume

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel, tool_call_turn
from tests.helpers import stdio_config

from . import elicit_servers
from .elicit_servers import EFFECTS

CONFIG = {"configurable": {"thread_id": "t1"}}


async def confirm_delete(server: dict[str, Any], sure: bool) -> str:
    async with MCPBridge({"shop": server}, plugins=[mcpbridge_elicitation]) as bridge:
        model = ScriptedChatModel(turns=[tool_call_turn(("delete_account", {"user": "bob"}))])
        run = create_agent(model, await bridge.list_tools(), checkpointer=InMemorySaver())
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        [pending] = result["__interrupt__"]
        answer = {"confirm": {"action": "accept", "content": {"sure": sure}}}
        result = await run.ainvoke(Command(resume=create_elicitation_resume(pending, answer)), CONFIG)
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    return str(message.content[0]["text"])


@pytest.mark.parametrize("sure", [True, False])
async def test_over_http_in_modern_mode(shop_url: str, sure: bool) -> None:
    EFFECTS.clear()
    text = await confirm_delete({"url": shop_url, "mode": "modern"}, sure)
    assert text == ("deleted bob" if sure else "kept bob (accept)")
    assert [d for what, d in EFFECTS if what == "deleted"] == (["bob"] if sure else [])


async def test_over_stdio_in_modern_mode() -> None:
    server = stdio_config("tests.plugins.elicitation.elicit_servers", mode="modern")
    assert await confirm_delete(server, True) == "deleted bob"


async def test_legacy_servers_are_answered_by_on_elicitation() -> None:
    EFFECTS.clear()
    asked: list[tuple[str, str]] = []

    async def on_elicitation(server: str, params: ElicitRequestFormParams) -> ElicitResult:
        asked.append((server, params.message))
        return ElicitResult(action="accept", content={"date": "2030-01-02"})

    async with MCPBridge(
        {"shop": {"server": elicit_servers.build(), "mode": "legacy"}},
        plugins=[mcpbridge_elicitation],
        plugin_settings={"elicitation": {"on_elicitation": on_elicitation}},
    ) as bridge:
        message = await bridge.call_tool("shop", "book", {"room": "green"})
    assert message.content[0]["text"] == "booked green on 2030-01-02"
    assert asked == [("shop", "Which date should I book?")]


async def test_legacy_question_without_on_elicitation_fails_clearly() -> None:
    EFFECTS.clear()
    async with MCPBridge(
        {"shop": {"server": elicit_servers.build(), "mode": "legacy"}}, plugins=[mcpbridge_elicitation]
    ) as bridge:
        message = await bridge.call_tool("shop", "book", {"room": "green"})
    assert message.status == "error"
    [refusal] = (block["text"] for block in message.content)
    assert "did not declare the form elicitation capability" in refusal
    # Other installed plugins that answer a capability (sampling) may be listed after it.
    assert (
        "installed plugins that can: elicitation (enabled: a legacy-protocol server asks "
        "for user input mid-call, where the agent cannot pause: set `on_elicitation` in [plugins.elicitation] "
        "to answer its questions)"
    ) in refusal
    assert EFFECTS == []


async def test_failing_on_elicitation_is_named_in_the_error() -> None:
    EFFECTS.clear()

    def on_elicitation(server: str, params: ElicitRequestFormParams) -> ElicitResult:
        raise RuntimeError("no answers today")

    async with MCPBridge(
        {"shop": {"server": elicit_servers.build(), "mode": "legacy"}},
        plugins=[mcpbridge_elicitation],
        plugin_settings={"elicitation": {"on_elicitation": on_elicitation}},
    ) as bridge:
        message = await bridge.call_tool("shop", "book", {"room": "green"})
    assert message.status == "error"
    assert "on_elicitation failed: RuntimeError: no answers today" in message.content[0]["text"]
    assert EFFECTS == []
