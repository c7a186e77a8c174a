"""mcpbridge-tasks against our mcp 2.x tasks server (tests/servers/tasks_server.py) over
in-process, stdio and streamable HTTP: task tools run as tasks with live status, optional
ones only when selected, cancellation reaches the server, a restarted worker resumes the
same task, a forgotten task is started again; without the plugin the error names it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcpbridge_events
import mcpbridge_tasks
import pytest
from langchain_core.messages import ToolMessage
from langgraph.store.memory import InMemoryStore
from mcp.types import CallToolResult, TaskMetadata
from mcpbridge_demo.task_server import TaskTools

from mcpbridge import ConfigError, MCPBridge, ToolCallRequest
from mcpbridge.testing import SessionProbe, make_agent, make_runtime, serve_http, stdio_config, tool_call_turn
from tests.helpers.waiting import PATIENCE, until
from tests.plugins.tasks.entries import forgotten_entry
from tests.servers.tasks_server import build

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

SERVER = Path(__file__).resolve().parents[2] / "servers" / "tasks_server.py"
WORKER = Path(__file__).resolve().parent / "worker.py"


@pytest.fixture
def served() -> Iterator[tuple[str, TaskTools]]:
    server, tasks = build()
    http = serve_http(server)
    try:
        yield http.url, tasks
    finally:
        http.stop()


def bridge(config: dict[str, Any], *plugins: Any, **settings: Any) -> MCPBridge:
    return MCPBridge(
        {"jobs": {**config, "mode": "legacy"}},
        plugins=[*plugins, mcpbridge_tasks],
        plugin_settings={"tasks": settings} if settings else None,
    )


async def call(bridge: MCPBridge, name: str, args: dict[str, Any], runtime: Any = None) -> ToolMessage:
    [tool] = [tool for tool in await bridge.list_tools() if tool.metadata["name"] == name]
    message = await tool.ainvoke({"type": "tool_call", "name": tool.name, "args": args, "id": "call-1"})
    assert isinstance(message, ToolMessage)
    return message


async def log(bridge: MCPBridge) -> dict[str, list[str]]:
    message = await call(bridge, "task_log", {})
    found: dict[str, list[str]] = json.loads(str(message.content[0]["text"]))  # type: ignore[index]
    return found


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_a_required_task_runs_with_live_status(transport: str, served: tuple[str, TaskTools]) -> None:
    url, _ = served
    server, _tasks = build()
    config = {"inprocess": {"server": server}, "stdio": stdio_config(SERVER), "http": {"url": url}}[transport]
    async with bridge(config, mcpbridge_events, poll_min=0.05) as tasks_bridge:
        turn = tool_call_turn(("report", {"steps": 3, "delay": 0.3}))
        agent = make_agent([turn], await tasks_bridge.list_tools())
        run = {"configurable": {"thread_id": "t1"}}
        stream = agent.astream({"messages": [("user", "go")]}, run, stream_mode=["custom", "updates"])
        chunks = [chunk async for chunk in stream]
        created = (await log(tasks_bridge))["created"]
    events = [data for mode, data in chunks if mode == "custom" and data.get("type") == "mcpbridge.tool_call"]
    progress = [e["message"] for e in events if e["event"] == "progress"]
    # Polled every 0.1 s, steps of 0.3 s: each step is seen once, in order (a busy machine may miss one).
    assert progress == sorted(set(progress)), progress
    assert set(progress) <= {"step 1 of 3", "step 2 of 3", "step 3 of 3"}, progress
    assert progress[-1] == "step 3 of 3", progress
    assert len(progress) >= 2, progress
    statuses = [e["data"] for e in events if e["event"] == "update" and e["update"] == "task.status"]
    assert statuses[-1]["status"] == "completed"
    assert {s["task_id"] for s in statuses} == set(created)
    assert len(created) == 1
    [message] = [m for _, update in chunks if "tools" in update for m in update["tools"]["messages"]]
    assert message.content == [{"type": "text", "text": "report done after 3 steps"}]


async def test_optional_tools_run_as_tasks_only_when_selected() -> None:
    server, tasks = build()
    async with bridge({"server": server}) as plain:
        assert (await call(plain, "quick", {"text": "a"})).content == [{"type": "text", "text": "quick: a"}]
    assert tasks.created == []
    async with bridge({"server": server}, optional=[{"tool": "quick"}]) as selected:
        assert (await call(selected, "quick", {"text": "b"})).content == [{"type": "text", "text": "quick: b"}]
    assert len(tasks.created) == 1


def with_store(store: InMemoryStore) -> Any:
    """A ToolRuntime of thread "t1", tool call "call-1", with `store` as the agent's store."""
    runtime = make_runtime(tool_call_id="call-1", config={"configurable": {"thread_id": "t1"}})
    return runtime.__class__(**{**vars(runtime), "store": store})


async def test_cancelling_the_call_cancels_the_task() -> None:
    server, tasks = build()
    store = InMemoryStore()
    async with bridge({"server": server}) as tasks_bridge:
        args = {"steps": 50, "delay": 0.1, "runtime": with_store(store)}
        running = asyncio.create_task(call(tasks_bridge, "report", args))
        await until(
            lambda: len(tasks.created) == 1 and store.get((mcpbridge_tasks.NAMESPACE, "t1"), "call-1") is not None,
            "the task created and stored",
        )
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
    assert tasks.cancelled == tasks.created
    assert tasks.jobs[tasks.created[0]].status == "cancelled"
    assert store.get((mcpbridge_tasks.NAMESPACE, "t1"), "call-1") is None  # nothing left to resume


async def test_a_forgotten_task_is_started_again(caplog: pytest.LogCaptureFixture) -> None:
    """The store names a task the server no longer knows (it expired): a new one runs."""
    server, tasks = build()
    store = InMemoryStore()
    asked = {"steps": 1, "delay": 0.01}
    store.put((mcpbridge_tasks.NAMESPACE, "t1"), "call-1", forgotten_entry("report", asked))
    async with bridge({"server": server}) as tasks_bridge:
        message = await call(tasks_bridge, "report", {**asked, "runtime": with_store(store)})
    assert message.content == [{"type": "text", "text": "report done after 1 steps"}]
    assert "task gone cannot be resumed" in caplog.text  # the entry was this call's: it was tried
    assert len(tasks.created) == 1
    assert store.get((mcpbridge_tasks.NAMESPACE, "t1"), "call-1") is None


def test_a_restarted_worker_resumes_the_same_task(served: tuple[str, TaskTools], tmp_path: Path) -> None:
    """Worker A creates the task and is killed; worker B, on the same SQLite checkpointer and
    store, polls that task to its end: the server saw one task."""
    url, tasks = served
    database = str(tmp_path / "agent.sqlite")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    first = subprocess.Popen([sys.executable, str(WORKER), url, database, "start"], env=env)
    try:
        deadline = time.monotonic() + PATIENCE
        while not (tasks.created and tasks.jobs[tasks.created[0]].message == "step 3 of 12"):
            assert time.monotonic() < deadline, "worker A never created its task"
            assert first.poll() is None, "worker A ended early"
            time.sleep(0.02)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    assert tasks.jobs[tasks.created[0]].status == "working"
    second = subprocess.run(
        [sys.executable, str(WORKER), url, database, "resume"],
        env=env,
        capture_output=True,
        text=True,
        timeout=2 * PATIENCE,
    )
    assert second.returncode == 0, second.stderr
    assert "report done after 12 steps" in second.stdout
    assert len(tasks.created) == 1
    assert tasks.cancelled == []


async def test_without_the_plugin_a_required_task_tool_names_it() -> None:
    server, tasks = build()
    async with MCPBridge({"jobs": {"server": server, "mode": "legacy"}}, plugins=[]) as plain:
        message = await call(plain, "report", {})
    assert message.status == "error"
    # the core names no plugin: the hint comes from what installed plugins declare they answer
    assert "no plugin answered tasks; installed plugins that can: tasks (mcpbridge-tasks" in str(message.content)
    assert tasks.created == []


async def test_poll_bounds_are_checked() -> None:
    server, _ = build()
    with pytest.raises(ConfigError, match="poll_min"):
        async with bridge({"server": server}, poll_min=3, poll_max=1):
            pass


async def test_a_modern_session_says_tasks_need_legacy_mode() -> None:
    """The core refuses a task on a 2026-07-28 session (tasks are an extension there), naming the fix."""
    server, tasks = build()
    async with MCPBridge({"jobs": {"server": server}}, plugins=[mcpbridge_tasks]) as modern:
        await modern.list_tools()
        request = ToolCallRequest(name="quick", args={"text": "a"}, server_name="jobs")
        answer = await SessionProbe(modern, "jobs").call_tool(request.override(task=TaskMetadata()))
    assert isinstance(answer, CallToolResult)
    assert answer.is_error
    assert 'mode = "legacy"' in str(answer.content)
    assert tasks.created == []
