"""The approval plugin in real `create_agent` runs: pause, decide, resume; fail closed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import mcpbridge_approval
import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, Interrupt
from mcpbridge_approval import APPROVE, create_approval_resume
from pydantic import ValidationError

from mcpbridge import (
    CannotPauseError,
    MCPBridge,
    MCPTool,
    Settings,
    ToolCallHandler,
    ToolCallRequest,
    definition_fingerprint,
)
from mcpbridge.testing import ScriptedChatModel, tool_call_turn

from . import approval_servers
from .approval_servers import ran

CONFIG = {"configurable": {"thread_id": "t1"}}


@pytest.fixture(autouse=True)
def fresh_log() -> None:
    approval_servers.CALLS.clear()


@pytest.fixture
async def tools() -> AsyncIterator[list[MCPTool]]:
    async with MCPBridge({"files": approval_servers.build()}, plugins=[mcpbridge_approval]) as bridge:
        yield await bridge.list_tools()


def agent(tools: list[MCPTool], *calls: tuple[str, dict[str, Any]], checkpointer: Any = None) -> Any:
    model = ScriptedChatModel(turns=[tool_call_turn(*calls)])
    return create_agent(model, tools, checkpointer=checkpointer if checkpointer is not None else InMemorySaver())


def tool_messages(result: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in result["messages"] if isinstance(m, ToolMessage)]


async def test_read_only_tool_runs_without_asking(tools: list[MCPTool]) -> None:
    result = await agent(tools, ("read_file", {"path": "a.txt"})).ainvoke({"messages": [("user", "go")]}, CONFIG)
    assert "__interrupt__" not in result
    assert ran("read_file") == [{"path": "a.txt"}]


async def test_destructive_call_pauses_and_runs_once_approved(tools: list[MCPTool]) -> None:
    run = agent(tools, ("delete_file", {"path": "/etc/passwd"}))
    result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    [pending] = result["__interrupt__"]
    assert pending.value == {
        "type": "mcp_approval",
        "server_name": "files",
        "name": "delete_file",
        "display_name": "delete_file",
        "tool_call_id": "call-1",
        "arguments": {"path": "/etc/passwd"},
        "annotations": {"destructiveHint": True},
        "description": "Delete a file for good.",
        "allowed_decisions": ["approve", "edit", "reject", "respond"],
        "input_schema": {
            "type": "object",
            "properties": {"path": {"title": "Path", "type": "string"}},
            "required": ["path"],
            "title": "delete_fileArguments",
        },
        "fingerprint": definition_fingerprint(next(t for t in tools if t.name == "delete_file").binding.tool),
    }
    assert pending.response_schema is not None
    assert ran("delete_file") == []
    result = await run.ainvoke(Command(resume=create_approval_resume(result["__interrupt__"])), CONFIG)
    [message] = tool_messages(result)
    assert message.status == "success"
    assert message.content[0]["text"] == "deleted /etc/passwd"
    assert {"type": "mcpbridge_approval", "decision": "approve"} in message.artifact
    assert ran("delete_file") == [{"path": "/etc/passwd"}]


async def test_reject_tells_the_model_and_never_calls(tools: list[MCPTool]) -> None:
    run = agent(tools, ("delete_file", {"path": "x"}))
    result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    decision = {"type": "reject", "message": "keep it"}
    result = await run.ainvoke(Command(resume=create_approval_resume(result["__interrupt__"], decision)), CONFIG)
    [message] = tool_messages(result)
    assert message.status == "error"
    assert "not run" in message.content
    assert "keep it" in message.content
    assert {"type": "mcpbridge_approval", "decision": "reject", "message": "keep it"} in message.artifact
    assert result["messages"][-1].content == "Done."
    assert ran("delete_file") == []


async def test_respond_answers_in_place_of_the_tool(tools: list[MCPTool]) -> None:
    run = agent(tools, ("delete_file", {"path": "x"}))
    result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    decision = {"type": "respond", "message": "already gone"}
    result = await run.ainvoke(Command(resume=create_approval_resume(result["__interrupt__"], decision)), CONFIG)
    [message] = tool_messages(result)
    assert (message.status, message.content) == ("success", "already gone")
    assert ran("delete_file") == []


async def test_edit_runs_the_edited_arguments(tools: list[MCPTool]) -> None:
    run = agent(tools, ("delete_file", {"path": "/"}))
    result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    edit = {"type": "edit", "edited_action": {"name": "delete_file", "args": {"path": "/tmp/scratch"}}}
    result = await run.ainvoke(Command(resume=create_approval_resume(result["__interrupt__"], edit)), CONFIG)
    [message] = tool_messages(result)
    assert ran("delete_file") == [{"path": "/tmp/scratch"}]
    texts = [block["text"] for block in message.content]
    assert texts[0].startswith("Note: a person edited")
    assert texts[1] == "deleted /tmp/scratch"
    [note] = [entry for entry in message.artifact if entry["type"] == "mcpbridge_approval"]
    assert note["original_arguments"] == {"path": "/"}
    assert note["arguments"] == {"path": "/tmp/scratch"}


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        ({"type": "maybe"}, "must be a dict whose `type` is one of"),
        ("yes", "must be a dict"),
        ({"type": "edit", "edited_action": {"args": {"path": 3}}}, 'path: 3 is not of type "string"'),
        ({"type": "edit", "edited_action": {"args": {}}}, '"path" is a required property'),
        ({"type": "edit", "edited_action": {"name": "read_file", "args": {"path": "a"}}}, "cannot switch"),
        ({"type": "edit"}, "needs `edited_action"),
        ({"type": "respond"}, "needs a `message`"),
    ],
)
async def test_malformed_decision_is_refused_and_can_be_answered_again(
    tools: list[MCPTool], decision: Any, expected: str
) -> None:
    run = agent(tools, ("delete_file", {"path": "/"}))
    result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    [pending] = result["__interrupt__"]
    with pytest.raises(ValidationError, match=expected):
        await run.ainvoke(Command(resume={pending.id: decision}), CONFIG)
    assert ran("delete_file") == []
    state = await run.aget_state(CONFIG)
    assert [i.id for i in state.interrupts] == [pending.id]
    await run.ainvoke(Command(resume={pending.id: {"type": "reject"}}), CONFIG)
    assert ran("delete_file") == []


async def test_parallel_calls_each_pause_and_are_answered_at_once(tools: list[MCPTool]) -> None:
    run = agent(tools, ("delete_file", {"path": "a"}), ("delete_file", {"path": "b"}), ("read_file", {"path": "c"}))
    result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    pending: list[Interrupt] = result["__interrupt__"]
    assert sorted(i.value["arguments"]["path"] for i in pending) == ["a", "b"]
    assert len({i.id for i in pending}) == 2
    assert ran("delete_file") == []

    def only_a(payload: Any) -> dict[str, Any]:
        return APPROVE if payload["arguments"]["path"] == "a" else {"type": "reject"}

    result = await run.ainvoke(Command(resume=create_approval_resume(pending, only_a)), CONFIG)
    assert ran("delete_file") == [{"path": "a"}]
    assert sorted(m.status for m in tool_messages(result)) == ["error", "success", "success"]


async def test_without_checkpointer_the_call_fails_closed(tools: list[MCPTool]) -> None:
    model = ScriptedChatModel(turns=[tool_call_turn(("delete_file", {"path": "x"}))])
    result = await create_agent(model, tools).ainvoke({"messages": [("user", "go")]})
    assert "__interrupt__" not in result
    [message] = tool_messages(result)
    assert message.status == "error"
    assert "no checkpointer" in message.content
    assert "checkpointer=InMemorySaver()" in message.content
    assert ran("delete_file") == []


async def test_outside_a_graph_the_call_fails_closed(tools: list[MCPTool]) -> None:
    [delete] = [t for t in tools if t.name == "delete_file"]
    message = await delete.ainvoke({"type": "tool_call", "name": "delete_file", "args": {"path": "x"}, "id": "c1"})
    assert message.status == "error"
    assert "not running inside a LangGraph graph" in message.content
    with pytest.raises(CannotPauseError, match="checkpointer"):
        await delete.ainvoke({"path": "x"})
    assert ran("delete_file") == []


async def test_prefixed_display_name_cannot_bypass_the_policy() -> None:
    waive_display_name = {"rules": [{"tool": "files_delete_file", "approval": "waive"}]}
    async with MCPBridge(
        {"files": approval_servers.build()},
        plugins=[mcpbridge_approval],
        tool_name_prefix=True,
        plugin_settings={"approval": waive_display_name},
    ) as bridge:
        tools = await bridge.list_tools()
        run = agent(tools, ("files_delete_file", {"path": "x"}))
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        [pending] = result["__interrupt__"]
        assert (pending.value["name"], pending.value["display_name"]) == ("delete_file", "files_delete_file")
        edit = {"type": "edit", "edited_action": {"name": "files_delete_file", "args": {"path": "y"}}}
        await run.ainvoke(Command(resume={pending.id: edit}), CONFIG)
    assert ran("delete_file") == [{"path": "y"}]


async def test_observers_hear_requested_and_decided() -> None:
    events: list[tuple[str, dict[str, Any]]] = []

    async def listen(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(observers=(*request.observers, lambda e, d: events.append((e, dict(d))))))

    settings = Settings(plugins={"order": ["interceptors", "approval"]})
    async with MCPBridge(
        {"files": approval_servers.build()}, settings=settings, plugins=[mcpbridge_approval], interceptors=[listen]
    ) as bridge:
        run = agent(await bridge.list_tools(), ("delete_file", {"path": "x"}))
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        assert events == [
            ("approval.requested", {"server_name": "files", "name": "delete_file", "arguments": {"path": "x"}})
        ]
        await run.ainvoke(Command(resume=create_approval_resume(result["__interrupt__"])), CONFIG)
    assert events[1:] == [("approval.decided", {"server_name": "files", "name": "delete_file", "decision": "approve"})]


async def test_allowed_decisions_limit_what_a_person_may_answer() -> None:
    async with MCPBridge(
        {"files": approval_servers.build()},
        plugins=[mcpbridge_approval],
        plugin_settings={"approval": {"allowed_decisions": ["approve", "reject"]}},
    ) as bridge:
        run = agent(await bridge.list_tools(), ("delete_file", {"path": "x"}))
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        [pending] = result["__interrupt__"]
        assert pending.value["allowed_decisions"] == ["approve", "reject"]
        with pytest.raises(ValueError, match="one of \\['approve', 'reject'\\], got 'respond'"):
            create_approval_resume(pending, {"type": "respond", "message": "hi"})
        with pytest.raises(ValidationError, match="one of \\['approve', 'reject'\\]"):
            await run.ainvoke(Command(resume={pending.id: {"type": "respond", "message": "hi"}}), CONFIG)
    assert ran("delete_file") == []


async def test_found_through_its_entry_point() -> None:
    async with MCPBridge({"files": approval_servers.build()}, plugins=["approval"]) as bridge:
        assert bridge.chain == ("approval", "claiming")
        run = agent(await bridge.list_tools(), ("delete_file", {"path": "x"}))
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        assert result["__interrupt__"][0].value["type"] == "mcp_approval"
    assert ran("delete_file") == []


def test_sync_agent_pauses_and_resumes_through_the_bridge_thread() -> None:
    """A sync agent with a sync bridge: the interrupt crosses the bridge's loop thread and back."""
    with MCPBridge({"files": approval_servers.build()}, plugins=[mcpbridge_approval]) as bridge:
        run = agent(bridge.list_tools_sync(), ("delete_file", {"path": "/tmp/x"}))
        paused = run.invoke({"messages": [("user", "go")]}, CONFIG)
        [pending] = paused["__interrupt__"]
        assert pending.value["name"] == "delete_file"
        assert ran("delete_file") == []
        done = run.invoke(Command(resume=create_approval_resume([pending], APPROVE)), CONFIG)
    assert ran("delete_file") == [{"path": "/tmp/x"}]
    assert tool_messages(done)[-1].status == "success"
