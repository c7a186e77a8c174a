"""An approval is bound to the tool definition it was given for: a resumed call whose tool
the server changed since (say, from "move to trash" to "erase irreversibly") asks again,
about the new definition, and never runs on the earlier decision."""

from __future__ import annotations

from typing import Any

import mcpbridge_approval
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from mcpbridge_approval import create_approval_resume

from mcpbridge import MCPBridge, MCPTool, definition_fingerprint
from mcpbridge.testing import ScriptedChatModel, SessionProbe, tool_call_turn
from tests.helpers.relabel import call, text, tools_of
from tests.helpers.waiting import until
from tests.security import definition_servers
from tests.security.definition_servers import ERASE, TRASH

CONFIG = {"configurable": {"thread_id": "t1"}}


def agent(tools: dict[str, MCPTool], checkpointer: InMemorySaver, model: ScriptedChatModel) -> Any:
    return create_agent(model, list(tools.values()), checkpointer=checkpointer)


def scripted() -> ScriptedChatModel:
    """The model of one conversation (however many agents run it): asks for `remove` once."""
    return ScriptedChatModel(turns=[tool_call_turn(("remove", {"path": "/a"}))])


def last_tool_message(result: dict[str, Any]) -> ToolMessage:
    return [m for m in result["messages"] if isinstance(m, ToolMessage)][-1]


async def test_an_approval_given_for_one_definition_asks_again_for_another() -> None:
    server, ran = definition_servers.changing()
    saver, model = InMemorySaver(), scripted()
    async with MCPBridge({"s": {"server": server}}, plugins=[mcpbridge_approval]) as bridge:
        before = await tools_of(bridge)
        paused = await agent(before, saver, model).ainvoke({"messages": [("user", "clean up")]}, CONFIG)
        [asked] = paused["__interrupt__"]
        assert asked.value["description"] == TRASH
        assert asked.value["fingerprint"] == definition_fingerprint(before["remove"].binding.tool)

        await before["change"].ainvoke(call("change", {}))
        after = await tools_of(bridge, refresh=True)
        # The person approves what they saw ("move to trash"); the run resumes with the tools
        # listed now, whose `remove` erases: it is not run, the person is asked about it.
        resumed = await agent(after, saver, model).ainvoke(Command(resume=create_approval_resume(asked)), CONFIG)
        assert not ran
        [again] = resumed["__interrupt__"]
        assert again.value["description"] == ERASE
        assert again.value["definition_changed"] is True
        assert again.value["fingerprint"] == definition_fingerprint(after["remove"].binding.tool)

        done = await agent(after, saver, model).ainvoke(Command(resume=create_approval_resume(again)), CONFIG)
        assert "__interrupt__" not in done
        assert last_tool_message(done).status == "success"
        assert ran == {ERASE: 1}


async def test_a_paused_call_through_the_earlier_tool_object_is_refused_unsent() -> None:
    server, ran = definition_servers.changing()
    saver, model = InMemorySaver(), scripted()
    async with MCPBridge({"s": {"server": server}}, plugins=[mcpbridge_approval]) as bridge:
        before = await tools_of(bridge)
        run = agent(before, saver, model)
        [asked] = (await run.ainvoke({"messages": [("user", "clean up")]}, CONFIG))["__interrupt__"]
        await before["change"].ainvoke(call("change", {}))
        await tools_of(bridge, refresh=True)
        done = await run.ainvoke(Command(resume=create_approval_resume(asked)), CONFIG)
        message = last_tool_message(done)
        assert message.status == "error"
        assert "is not the tool this object was built from" in text(message)
        assert not ran


async def test_a_decision_written_by_hand_is_bound_to_what_this_process_showed() -> None:
    server, ran = definition_servers.changing()
    saver, model = InMemorySaver(), scripted()
    async with MCPBridge({"s": {"server": server}}, plugins=[mcpbridge_approval]) as bridge:
        before = await tools_of(bridge)
        [asked] = (await agent(before, saver, model).ainvoke({"messages": [("user", "go")]}, CONFIG))["__interrupt__"]
        await before["change"].ainvoke(call("change", {}))
        after = await tools_of(bridge, refresh=True)
        resumed = await agent(after, saver, model).ainvoke(Command(resume={asked.id: {"type": "approve"}}), CONFIG)
        assert not ran
        [again] = resumed["__interrupt__"]
        assert (again.value["description"], again.value["definition_changed"]) == (ERASE, True)
        done = await agent(after, saver, model).ainvoke(Command(resume={again.id: {"type": "approve"}}), CONFIG)
        assert "__interrupt__" not in done
        assert ran == {ERASE: 1}


async def test_an_approval_never_runs_a_tool_the_server_announced_it_changed() -> None:
    server, ran = definition_servers.changing()
    saver, model = InMemorySaver(), scripted()
    async with MCPBridge({"s": {"server": server}}, plugins=[mcpbridge_approval]) as bridge:
        tools = await tools_of(bridge)
        run = agent(tools, saver, model)
        [asked] = (await run.ainvoke({"messages": [("user", "clean up")]}, CONFIG))["__interrupt__"]
        await tools["change"].ainvoke(call("change", {"announce": True}))
        await until(lambda: SessionProbe(bridge, "s").tools_changed, "the change announced")
        # The same agent resumes, with the tool objects it paused with; nobody listed the tools.
        done = await run.ainvoke(Command(resume=create_approval_resume(asked)), CONFIG)
        assert not ran
        message = last_tool_message(done)
        assert message.status == "error"
        assert "the server changed its definition since" in text(message)
