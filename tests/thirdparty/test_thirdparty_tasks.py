"""npm `@modelcontextprotocol/server-everything`'s task tool (`simulate-research-query`,
execution.taskSupport "required", protocol 2025-11-25) through mcpbridge-tasks: run by an
agent with live status in the events stream, cancelled with the run, asked for input
through elicitation; and without the plugin, an error that names it."""

from __future__ import annotations

import asyncio
from typing import Any

import mcpbridge_elicitation
import mcpbridge_events
import mcpbridge_tasks
import pytest
from langchain.agents import create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from mcp.types import ElicitRequestParams, ElicitResult, ListTasksRequest, ListTasksResult

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel, make_tool_call
from tests.helpers.waiting import until

from .support import invoke, text, tools_of

TOOL = "simulate-research-query"
STAGES = ["Gathering sources...", "Analyzing content...", "Synthesizing findings...", "Generating report..."]


@pytest.fixture(params=["stdio", "http"])
def everything(request: pytest.FixtureRequest, everything_stdio: dict[str, Any]) -> dict[str, Any]:
    if request.param == "stdio":
        return everything_stdio
    config: dict[str, Any] = request.getfixturevalue("everything_http").config
    return config


async def test_a_required_task_runs_through_an_agent_with_live_status(everything: dict[str, Any]) -> None:
    async with MCPBridge({"ev": everything}, plugins=[mcpbridge_events, mcpbridge_tasks]) as bridge:
        tool = (await tools_of(bridge))[TOOL]
        turn = AIMessage("", tool_calls=[{"name": tool.name, "args": {"topic": "tides"}, "id": "call-1"}])
        graph = create_agent(ScriptedChatModel(turns=[turn]), [tool], checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        chunks = [
            chunk
            async for chunk in graph.astream({"messages": [("user", "go")]}, config, stream_mode=["custom", "updates"])
        ]
    events = [data for mode, data in chunks if mode == "custom" and data.get("type") == "mcpbridge.tool_call"]
    statuses = [e["data"] for e in events if e["event"] == "update" and e["update"] == "task.status"]
    assert {s["status"] for s in statuses} == {"working", "completed"}, statuses
    assert len({s["task_id"] for s in statuses}) == 1
    progress = [(e["progress"], e["message"]) for e in events if e["event"] == "progress"]
    assert progress[0] == (1, "Gathering sources..."), progress
    assert progress[-1] == (len(progress), "Generating report..."), progress
    assert [message for _, message in progress] == sorted({m for _, m in progress}, key=STAGES.index), progress
    assert events[-1]["event"] == "finished"
    [message] = [m for _, update in chunks if "tools" in update for m in update["tools"]["messages"]]
    assert isinstance(message, ToolMessage)
    assert message.status == "success"
    assert "# Research Report: tides" in text(message)
    assert {"type": "mcpbridge_tasks", "task_id": statuses[0]["task_id"]} in message.artifact


async def test_without_the_plugin_the_error_names_it(everything_stdio: dict[str, Any]) -> None:
    async with MCPBridge({"ev": everything_stdio}, plugins=[]) as bridge:
        reply = await invoke(bridge, TOOL, {"topic": "tides"})
    assert reply.status == "error"
    assert "mcpbridge-tasks" in text(reply), text(reply)
    assert "taskSupport 'required'" in text(reply), text(reply)


async def test_cancelling_the_run_cancels_the_task(everything_stdio: dict[str, Any]) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    written: list[dict[str, Any]] = []
    async with MCPBridge({"ev": everything_stdio}, plugins=[mcpbridge_events, mcpbridge_tasks]) as bridge:
        tool = (await tools_of(bridge))[TOOL]
        runtime = ToolRuntime(
            state={}, context=None, config={}, stream_writer=written.append, tool_call_id="call-1", store=None
        )
        running = asyncio.create_task(tool.ainvoke(make_tool_call(tool, {"topic": "tides"}, runtime=runtime)))
        await until(lambda: any(e.get("update") == "task.status" for e in written), "the task's first status")
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        # The server says what became of the task: ask it directly on the same session.
        session = await bridge.session("ev")
        tasks = await session.send_request(ListTasksRequest(), ListTasksResult)
        seen = [(t.task_id, {"status": t.status}) for t in tasks.tasks]
    assert [status["status"] for _, status in seen] == ["cancelled"], seen


def answer(server: str, params: ElicitRequestParams) -> ElicitResult:
    return ElicitResult(action="accept", content={"interpretation": "historical"})


async def test_a_task_that_needs_input_asks_through_elicitation(everything_stdio: dict[str, Any]) -> None:
    async with MCPBridge(
        {"ev": everything_stdio},
        plugins=[mcpbridge_elicitation, mcpbridge_tasks],
        plugin_settings={"elicitation": {"on_elicitation": answer}},
    ) as bridge:
        reply = await invoke(bridge, TOOL, {"topic": "tides", "ambiguous": True})
    assert reply.status == "success", text(reply)
    assert "Clarification**: historical" in text(reply), text(reply)
