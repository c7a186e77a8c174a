"""Elicitation and the cache: an answer that depended on what a person (or `on_elicitation`) said is
never stored, so nobody gets it without being asked. Real agents with a checkpointer, the
elicitation plugin, and a rule that selects the asking tool by its exact name."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.types import Command
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    InputRequiredResult,
    ToolAnnotations,
)
from mcpbridge_elicitation import create_elicitation_resume
from pydantic import BaseModel

from mcpbridge import MCPBridge
from mcpbridge.testing import tool_call_turn

READ_ONLY = ToolAnnotations(read_only_hint=True)
CODE = "the launch code is 0000"
REFUSED = "no passphrase, no launch code"
ARGS = {"silo": "7"}
RULES = [{"server": "vault", "tool": "launch_code"}, {"server": "vault", "tool": "silo_status"}]
PASSPHRASE_SCHEMA = {"type": "object", "properties": {"passphrase": {"type": "string"}}, "required": ["passphrase"]}
ACCEPT = {"passphrase": {"action": "accept", "content": {"passphrase": "swordfish"}}}
DECLINE = {"passphrase": {"action": "decline"}}


class Passphrase(BaseModel):
    passphrase: str


def vault(calls: Counter[str], *, legacy: bool = False) -> MCPServer:
    """`launch_code` asks for a passphrase, then answers; `calls` counts what reached the
    server: "launch_code" every call (every round), "answered" every code given out.
    `legacy`: it asks mid-call (`elicitation/create`) instead of with an InputRequiredResult.
    `silo_status` never asks (the control: the cache is on for this server)."""
    server = MCPServer("vault")

    def outcome(action: str, passphrase: str | None) -> str:
        if action == "accept" and passphrase == "swordfish":
            calls["answered"] += 1
            return CODE
        return REFUSED

    async def ask_mid_call(silo: str, ctx: Context) -> str:
        """The launch code of a silo; asks for the passphrase mid-call."""
        calls["launch_code"] += 1
        reply = await ctx.elicit(f"Passphrase for silo {silo}?", Passphrase)
        return outcome(reply.action, reply.data.passphrase if reply.action == "accept" else None)

    def ask_first(silo: str, ctx: Context) -> str | InputRequiredResult:
        """The launch code of a silo; asks for the passphrase first."""
        calls["launch_code"] += 1
        reply = (ctx.input_responses or {}).get("passphrase")
        if not isinstance(reply, ElicitResult):
            params = ElicitRequestFormParams(message=f"Passphrase for silo {silo}?", requested_schema=PASSPHRASE_SCHEMA)
            return InputRequiredResult(
                input_requests={"passphrase": ElicitRequest(params=params)}, request_state=f"silo:{silo}"
            )
        return outcome(reply.action, str((reply.content or {}).get("passphrase")))

    server.tool(name="launch_code", annotations=READ_ONLY)(ask_mid_call if legacy else ask_first)

    @server.tool(annotations=READ_ONLY)
    def silo_status(silo: str) -> str:
        """Asks nothing."""
        calls["silo_status"] += 1
        return f"silo {silo} is armed"

    return server


@pytest.fixture
def calls() -> Counter[str]:
    return Counter()


def bridge_for(server: MCPServer, mode: str, **elicitation: Any) -> MCPBridge:
    return MCPBridge(
        {"vault": {"server": server, "mode": mode}},
        plugins=["elicitation", "cache"],
        plugin_settings={"cache": {"rules": RULES}, "elicitation": elicitation},
    )


def tool_message(result: dict[str, Any], tool_call_id: str = "call-1") -> ToolMessage:
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == tool_call_id]
    return message


def hits(message: ToolMessage) -> list[bool]:
    return [entry["hit"] for entry in message.artifact or [] if entry.get("type") == "mcpbridge_cache"]


async def ask_for_the_code(agent_factory: Callable[..., Any], tools: Any, thread: str) -> tuple[Any, Any]:
    """A run that calls `launch_code`; returns (agent, its pending elicitation interrupt)."""
    agent = agent_factory([tool_call_turn(("launch_code", ARGS))], tools)
    result = await agent.ainvoke({"messages": [("user", "the launch code?")]}, {"configurable": {"thread_id": thread}})
    assert "__interrupt__" in result, f"{thread} was not asked: {[m.content for m in result['messages']]}"
    [pending] = result["__interrupt__"]
    assert pending.value["type"] == "mcp_elicitation"
    assert (pending.value["name"], pending.value["arguments"]) == ("launch_code", ARGS)
    assert pending.value["requests"]["passphrase"]["message"] == "Passphrase for silo 7?"
    return agent, pending


async def answer(agent: Any, pending: Any, answers: dict[str, Any], thread: str) -> ToolMessage:
    result = await agent.ainvoke(
        Command(resume=create_elicitation_resume(pending, answers)), {"configurable": {"thread_id": thread}}
    )
    assert "__interrupt__" not in result
    return tool_message(result)


async def test_another_user_is_asked_too(calls: Counter[str], agent_factory: Any) -> None:
    """User A is asked and answers; user B, calling the same tool with the same arguments, is
    asked as well (an interrupt, not A's answer from the cache), and gets what B's own answer
    earns."""
    async with bridge_for(vault(calls), "modern") as bridge:
        tools = await bridge.list_tools()
        agent_a, pending_a = await ask_for_the_code(agent_factory, tools, "user-a")
        given_a = await answer(agent_a, pending_a, ACCEPT, "user-a")
        assert given_a.text == CODE
        assert True not in hits(given_a)
        assert calls["answered"] == 1

        agent_b, pending_b = await ask_for_the_code(agent_factory, tools, "user-b")
        given_b = await answer(agent_b, pending_b, DECLINE, "user-b")
        assert given_b.text == REFUSED, "user B got user A's answer"
        assert True not in hits(given_b)

        # and A asking again is asked again: the code was never stored
        agent_a2, pending_a2 = await ask_for_the_code(agent_factory, tools, "user-a-again")
        assert (await answer(agent_a2, pending_a2, ACCEPT, "user-a-again")).text == CODE
    assert calls["answered"] == 2


async def test_a_declined_question_is_asked_again_on_the_next_call(calls: Counter[str], agent_factory: Any) -> None:
    async with bridge_for(vault(calls), "modern") as bridge:
        second_call = AIMessage(
            "", tool_calls=[{"name": "launch_code", "args": ARGS, "id": "call-2", "type": "tool_call"}]
        )
        agent = agent_factory(
            [tool_call_turn(("launch_code", ARGS)), AIMessage("You declined."), second_call],
            await bridge.list_tools(),
        )
        config = {"configurable": {"thread_id": "t1"}}
        result = await agent.ainvoke({"messages": [("user", "the launch code?")]}, config)
        [pending] = result["__interrupt__"]
        result = await agent.ainvoke(Command(resume=create_elicitation_resume(pending, DECLINE)), config)
        declined = tool_message(result, "call-1")
        assert declined.text == REFUSED
        assert True not in hits(declined)

        result = await agent.ainvoke({"messages": [("user", "again, please")]}, config)
        assert "__interrupt__" in result, "the second call was answered without asking"
        [again] = result["__interrupt__"]
        assert again.id != pending.id
        assert again.value["tool_call_id"] == "call-2"
        result = await agent.ainvoke(Command(resume=create_elicitation_resume(again, ACCEPT)), config)
        assert tool_message(result, "call-2").text == CODE
    assert calls["answered"] == 1


async def test_control_a_tool_that_asks_nothing_is_cached(calls: Counter[str], agent_factory: Any) -> None:
    """The control for this file: the rules do cache this server's read-only tools."""
    async with bridge_for(vault(calls), "modern") as bridge:
        tools = await bridge.list_tools()
        messages = []
        for thread in ("user-a", "user-b"):
            agent = agent_factory([tool_call_turn(("silo_status", ARGS))], tools)
            result = await agent.ainvoke({"messages": [("user", "status?")]}, {"configurable": {"thread_id": thread}})
            messages.append(tool_message(result))
    assert [(m.text, hits(m)) for m in messages] == [("silo 7 is armed", [False]), ("silo 7 is armed", [True])]
    assert calls["silo_status"] == 1


# -- legacy protocol: on_elicitation answers mid-call ------------------------------------


class Answers:
    """An `on_elicitation` that answers `replies` in turn (after `delay` seconds) and keeps
    what it was asked."""

    def __init__(self, *replies: ElicitResult, delay: float = 0.0) -> None:
        self.replies = list(replies)
        self.delay = delay
        self.asked: list[tuple[str, str]] = []

    async def __call__(self, server_name: str, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append((server_name, params.message))
        await asyncio.sleep(self.delay)
        return self.replies.pop(0)


GIVE = ElicitResult(action="accept", content={"passphrase": "swordfish"})
REFUSE = ElicitResult(action="decline")


@pytest.mark.parametrize("reply", [GIVE, REFUSE], ids=["accepted", "declined"])
async def test_legacy_answers_given_mid_call_are_never_stored(
    calls: Counter[str], agent_factory: Any, reply: ElicitResult
) -> None:
    on_elicitation = Answers(reply, reply)
    expected = CODE if reply.action == "accept" else REFUSED
    async with bridge_for(vault(calls, legacy=True), "legacy", on_elicitation=on_elicitation) as bridge:
        tools = await bridge.list_tools()
        messages = []
        for thread in ("user-a", "user-b"):
            agent = agent_factory([tool_call_turn(("launch_code", ARGS))], tools)
            result = await agent.ainvoke({"messages": [("user", "code?")]}, {"configurable": {"thread_id": thread}})
            assert "__interrupt__" not in result
            messages.append(tool_message(result))
        assert [m.text for m in messages] == [expected, expected]
        assert True not in hits(messages[1]), "the second call was answered from the cache"
        assert calls["launch_code"] == 2, "the second identical call did not reach the server"
        assert on_elicitation.asked == [("vault", "Passphrase for silo 7?")] * 2

        # the control: on this legacy connection, a tool that asks nothing is cached
        status = [await bridge.call_tool("vault", "silo_status", ARGS) for _ in range(2)]
        assert [hits(m) for m in status] == [[False], [True]]
        assert calls["silo_status"] == 1


async def test_legacy_an_asked_call_is_not_shared_with_an_identical_call_in_flight(calls: Counter[str]) -> None:
    """Two identical calls at once: the first is asked (slowly) and accepted, the second
    declined. Had the second waited for the first's result, both would hold the code."""
    on_elicitation = Answers(GIVE, REFUSE, delay=0.2)
    async with bridge_for(vault(calls, legacy=True), "legacy", on_elicitation=on_elicitation) as bridge:
        messages = await asyncio.gather(
            bridge.call_tool("vault", "launch_code", ARGS), bridge.call_tool("vault", "launch_code", ARGS)
        )
    assert sorted(m.text for m in messages) == sorted([CODE, REFUSED])
    assert [True in hits(m) for m in messages] == [False, False]
    assert calls["launch_code"] == 2
    assert calls["answered"] == 1
    assert len(on_elicitation.asked) == 2
