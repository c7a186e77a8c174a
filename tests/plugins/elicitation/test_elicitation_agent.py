"""The elicitation plugin in real `create_agent` runs against servers that ask the user."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import mcpbridge_elicitation
import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, Interrupt
from mcpbridge_elicitation import create_elicitation_resume
from pydantic import ValidationError

from mcpbridge import CannotPauseError, ConfigError, MCPBridge, MCPTool, Settings, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import ScriptedChatModel, tool_call_turn

from . import elicit_servers
from .elicit_servers import EFFECTS

CONFIG = {"configurable": {"thread_id": "t1"}}
DATE_KEY = f"{elicit_servers.__name__}:ask_date"  # the SDK keys a resolver question by module:qualname
FAST = {"backoff_initial": 0.01, "backoff_max": 0.02}


@pytest.fixture(autouse=True)
def fresh_effects() -> None:
    EFFECTS.clear()


@pytest.fixture
async def tools() -> AsyncIterator[list[MCPTool]]:
    async with MCPBridge({"shop": elicit_servers.build()}, plugins=[mcpbridge_elicitation]) as bridge:
        yield await bridge.list_tools()


def agent(tools: list[MCPTool], *calls: tuple[str, dict[str, Any]], checkpointer: Any = None) -> Any:
    model = ScriptedChatModel(turns=[tool_call_turn(*calls)])
    return create_agent(model, tools, checkpointer=checkpointer if checkpointer is not None else InMemorySaver())


def texts(result: dict[str, Any]) -> list[str]:
    return [
        m.content if isinstance(m.content, str) else m.content[0]["text"]
        for m in result["messages"]
        if isinstance(m, ToolMessage)
    ]


def effects(kind: str) -> list[Any]:
    return [detail for what, detail in EFFECTS if what == kind]


async def start(run: Any) -> Interrupt:
    result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    [pending] = result["__interrupt__"]
    return pending


async def test_booking_asks_a_date_and_books_once(tools: list[MCPTool]) -> None:
    run = agent(tools, ("book", {"room": "blue"}))
    pending = await start(run)
    assert pending.value == {
        "type": "mcp_elicitation",
        "server_name": "shop",
        "name": "book",
        "display_name": "book",
        "tool_call_id": "call-1",
        "arguments": {"room": "blue"},
        "round": 1,
        "requests": {
            DATE_KEY: {
                "mode": "form",
                "message": "Which date should I book?",
                "requested_schema": {
                    "type": "object",
                    "properties": {"date": {"title": "Date", "type": "string"}},
                    "required": ["date"],
                },
            }
        },
    }
    assert effects("booked") == []
    answer = {DATE_KEY: {"action": "accept", "content": {"date": "2031-05-01"}}}
    result = await run.ainvoke(Command(resume=create_elicitation_resume(pending, answer)), CONFIG)
    assert texts(result) == ["booked blue on 2031-05-01"]
    message = next(m for m in result["messages"] if isinstance(m, ToolMessage))
    assert {"type": "mcpbridge_elicitation", "rounds": 1, "answers": [{DATE_KEY: "accept"}]} in message.artifact
    assert effects("booked") == ["blue@2031-05-01"]


@pytest.mark.parametrize(
    ("answer", "outcome", "deleted"),
    [
        ({"action": "accept", "content": {"sure": True}}, "deleted bob", ["bob"]),
        ({"action": "accept", "content": {"sure": False}}, "kept bob (accept)", []),
        ({"action": "decline"}, "kept bob (decline)", []),
        ({"action": "cancel"}, "kept bob (cancel)", []),
    ],
)
async def test_delete_asks_for_confirmation(
    tools: list[MCPTool], answer: dict[str, Any], outcome: str, deleted: list[str]
) -> None:
    run = agent(tools, ("delete_account", {"user": "bob"}))
    pending = await start(run)
    assert pending.value["requests"]["confirm"]["message"] == "Really delete bob?"
    result = await run.ainvoke(Command(resume=create_elicitation_resume(pending, {"confirm": answer})), CONFIG)
    assert texts(result) == [outcome]
    assert effects("deleted") == deleted


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ({"confirm": {"action": "accept", "content": {"sure": "yes"}}}, 'sure: "yes" is not of type "boolean"'),
        ({"confirm": {"action": "accept"}}, "needs `content`"),
        ({"confirm": {"action": "maybe"}}, "`action` is one of"),
        ({}, "missing \\['confirm'\\]"),
        ({"confirm": {"action": "decline"}, "extra": {"action": "decline"}}, "unknown \\['extra'\\]"),
    ],
)
async def test_bad_answers_are_refused_and_can_be_given_again(
    tools: list[MCPTool], answers: dict[str, Any], expected: str
) -> None:
    run = agent(tools, ("delete_account", {"user": "bob"}))
    pending = await start(run)
    with pytest.raises(ValueError, match=expected):
        create_elicitation_resume(pending, answers)
    with pytest.raises(ValidationError, match=expected):
        await run.ainvoke(Command(resume={pending.id: answers}), CONFIG)
    assert [i.id for i in (await run.aget_state(CONFIG)).interrupts] == [pending.id]
    result = await run.ainvoke(
        Command(resume=create_elicitation_resume(pending, {"confirm": {"action": "decline"}})), CONFIG
    )
    assert texts(result) == ["kept bob (decline)"]
    assert effects("deleted") == []


async def test_two_rounds_in_one_call(tools: list[MCPTool]) -> None:
    run = agent(tools, ("survey", {}))
    first = await start(run)
    assert (first.value["round"], list(first.value["requests"])) == (1, ["name"])
    result = await run.ainvoke(
        Command(resume=create_elicitation_resume(first, {"name": {"action": "accept", "content": {"name": "Ada"}}})),
        CONFIG,
    )
    [second] = result["__interrupt__"]
    assert second.id != first.id
    assert (second.value["round"], sorted(second.value["requests"])) == (2, ["age", "color"])
    answers = {"color": {"action": "accept", "content": {"color": "blue"}}, "age": {"action": "decline"}}
    result = await run.ainvoke(Command(resume=create_elicitation_resume(second, answers)), CONFIG)
    assert texts(result) == ["Ada likes blue, age unknown"]
    assert effects("survey") == ["Ada likes blue, age unknown"]
    # Resume re-runs the call from its first round: 1 (paused) + 2 (paused) + 3 rounds.
    assert effects("call") == ["survey"] * 6


async def test_url_mode_question(tools: list[MCPTool]) -> None:
    run = agent(tools, ("login", {}))
    pending = await start(run)
    assert pending.value["requests"] == {
        "oauth": {"mode": "url", "message": "Sign in", "url": "https://auth.example/x"}
    }
    result = await run.ainvoke(
        Command(resume=create_elicitation_resume(pending, {"oauth": {"action": "accept"}})), CONFIG
    )
    assert texts(result) == ["login accept"]


async def test_parallel_calls_answered_in_one_command(tools: list[MCPTool]) -> None:
    run = agent(tools, ("delete_account", {"user": "ann"}), ("delete_account", {"user": "bob"}))
    result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    by_user = {i.value["arguments"]["user"]: i for i in result["__interrupt__"]}
    resume = create_elicitation_resume(by_user["ann"], {"confirm": {"action": "accept", "content": {"sure": True}}})
    resume |= create_elicitation_resume(by_user["bob"], {"confirm": {"action": "decline"}})
    result = await run.ainvoke(Command(resume=resume), CONFIG)
    assert sorted(texts(result)) == ["deleted ann", "kept bob (decline)"]
    assert effects("deleted") == ["ann"]


async def test_continuation_rounds_are_retried_with_backoff() -> None:
    async with MCPBridge(
        {"shop": elicit_servers.build()}, plugins=[mcpbridge_elicitation], plugin_settings={"elicitation": FAST}
    ) as bridge:
        result = await agent(await bridge.list_tools(), ("slow_job", {})).ainvoke(
            {"messages": [("user", "go")]}, CONFIG
        )
    assert "__interrupt__" not in result
    assert texts(result) == ["job done"]
    assert effects("call") == ["slow_job"] * 3


@pytest.mark.parametrize(("tool", "max_rounds"), [("slow_job", 1), ("pester", 1)])
async def test_max_rounds_stops_the_call(tool: str, max_rounds: int) -> None:
    settings = {"elicitation": {**FAST, "max_rounds": max_rounds}}
    async with MCPBridge(
        {"shop": elicit_servers.build()}, plugins=[mcpbridge_elicitation], plugin_settings=settings
    ) as bridge:
        run = agent(await bridge.list_tools(), (tool, {}))
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        if tool == "pester":
            [pending] = result["__interrupt__"]
            answer = {"again": {"action": "accept", "content": {"ok": True}}}
            result = await run.ainvoke(Command(resume=create_elicitation_resume(pending, answer)), CONFIG)
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.status == "error"
    assert f"still asked for input after {max_rounds} rounds" in message.content
    assert "max_rounds" in message.content


async def test_roots_requests_are_not_supported(tools: list[MCPTool]) -> None:
    result = await agent(tools, ("wants_roots", {})).ainvoke({"messages": [("user", "go")]}, CONFIG)
    assert "__interrupt__" not in result
    [text] = texts(result)
    assert "asked for roots (['roots']), which no enabled plugin answered" in text
    assert "`Plugin(answers=('roots',))`" in text


async def test_without_checkpointer_the_call_fails_instead_of_pausing(tools: list[MCPTool]) -> None:
    model = ScriptedChatModel(turns=[tool_call_turn(("delete_account", {"user": "bob"}))])
    result = await create_agent(model, tools).ainvoke({"messages": [("user", "go")]})
    assert "__interrupt__" not in result
    [text] = texts(result)
    assert "no checkpointer" in text
    assert "checkpointer=InMemorySaver()" in text
    assert effects("deleted") == []


async def test_outside_a_graph_the_call_fails(tools: list[MCPTool]) -> None:
    [delete] = [t for t in tools if t.name == "delete_account"]
    message = await delete.ainvoke({"type": "tool_call", "name": "delete_account", "args": {"user": "bob"}, "id": "c"})
    assert message.status == "error"
    assert "not running inside a LangGraph graph" in message.content
    with pytest.raises(CannotPauseError):
        await delete.ainvoke({"user": "bob"})
    assert effects("deleted") == []


async def test_per_server_opt_out() -> None:
    settings = {"elicitation": {"skip_servers": ["shop"]}}
    async with MCPBridge(
        {"shop": elicit_servers.build()}, plugins=[mcpbridge_elicitation], plugin_settings=settings
    ) as bridge:
        run = agent(await bridge.list_tools(), ("delete_account", {"user": "bob"}), ("book", {"room": "red"}))
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    assert "__interrupt__" not in result
    deleting, booking = texts(result)
    assert "elicitation is off for server 'shop' (`skip_servers` in [plugins.elicitation])" in deleting
    assert "elicitation" in booking  # the server refuses: the client declared no elicitation capability
    assert effects("deleted") == effects("booked") == []


async def test_observers_hear_each_round() -> None:
    events: list[tuple[str, dict[str, Any]]] = []

    async def listen(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(observers=(*request.observers, lambda e, d: events.append((e, dict(d))))))

    settings = Settings(plugins={"order": ["interceptors", "elicitation"]})
    async with MCPBridge(
        {"shop": elicit_servers.build()}, settings=settings, plugins=[mcpbridge_elicitation], interceptors=[listen]
    ) as bridge:
        await start(agent(await bridge.list_tools(), ("survey", {})))
    assert events == [("elicitation.round", {"server_name": "shop", "name": "survey", "round": 1, "keys": ["name"]})]


async def test_found_through_its_entry_point() -> None:
    async with MCPBridge({"shop": elicit_servers.build()}, plugins=["elicitation"]) as bridge:
        pending = await start(agent(await bridge.list_tools(), ("book", {"room": "x"})))
    assert pending.value["type"] == "mcp_elicitation"


def test_opt_out_of_an_unknown_server_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="skip_servers.0`: .*server 'shopp' is not configured"):
        MCPBridge(
            {"shop": elicit_servers.build()},
            plugins=[mcpbridge_elicitation],
            plugin_settings={"elicitation": {"skip_servers": ["shopp"]}},
        )


def test_sync_agent_asks_and_resumes_through_the_bridge_thread() -> None:
    """A sync agent with a sync bridge: the question crosses the bridge's loop thread and back."""
    with MCPBridge({"shop": elicit_servers.build()}, plugins=[mcpbridge_elicitation]) as bridge:
        run = agent(bridge.list_tools_sync(), ("book", {"room": "red"}))
        [pending] = run.invoke({"messages": [("user", "go")]}, CONFIG)["__interrupt__"]
        assert effects("booked") == []
        answer = {DATE_KEY: {"action": "accept", "content": {"date": "2031-06-02"}}}
        result = run.invoke(Command(resume=create_elicitation_resume(pending, answer)), CONFIG)
    assert texts(result) == ["booked red on 2031-06-02"]
    assert effects("booked") == ["red@2031-06-02"]
