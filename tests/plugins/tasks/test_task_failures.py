"""mcpbridge-tasks when polling fails and when a stored task id meets a call that asks
something else, in real agents with a checkpointer and a store: a `tasks/get` error answer
ends the call with an error ToolMessage (the run goes on) and the task is cancelled and
forgotten; a stored task answers only the call that asked for it (same server, tool,
arguments), so a later call with the same tool-call id and other arguments runs its own."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import mcpbridge_tasks
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.store.base import Op, PutOp, Result
from langgraph.store.memory import InMemoryStore
from mcp import MCPError
from mcp.server.context import ServerRequestContext
from mcp.types import INTERNAL_ERROR
from mcpbridge_demo.task_server import TaskTools

from mcpbridge import MCPBridge, Plugin, ToolCallHandler, ToolCallRequest, hookimpl
from mcpbridge.testing import make_agent, serve_http, tool_call_turn
from tests.servers.tasks_server import build

KEY = ((mcpbridge_tasks.NAMESPACE, "t1"), "call-1")
RUN = {"configurable": {"thread_id": "t1"}}


class FailingPolls:
    """Server middleware, outside the tasks one: answers the next `failures` `tasks/get` with
    a JSON-RPC error, as a server whose task store broke does."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        if ctx.method == "tasks/get" and self.failures > 0:
            self.failures -= 1
            raise MCPError(code=INTERNAL_ERROR, message="the task store is unavailable")
        return await call_next(ctx)


def failing_server(failures: int) -> tuple[Any, TaskTools]:
    server, tasks = build()
    server.middleware.insert(server.middleware.index(tasks), FailingPolls(failures))
    return server, tasks


def tool_messages(result: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in result["messages"] if isinstance(m, ToolMessage)]


def text(message: ToolMessage) -> str:
    return str(message.content[0]["text"]) if isinstance(message.content, list) else str(message.content)  # type: ignore[index]


async def test_a_failed_poll_is_an_error_message_and_the_task_is_forgotten() -> None:
    server, tasks = failing_server(failures=1)
    store = InMemoryStore()
    turns = [
        tool_call_turn(("report", {"steps": 2, "delay": 0.05})),
        AIMessage("the report failed"),
        tool_call_turn(("report", {"steps": 1, "delay": 0.01})),  # the same tool-call id, call-1
        AIMessage("done"),
    ]
    async with MCPBridge({"jobs": {"server": server, "mode": "legacy"}}, plugins=[mcpbridge_tasks]) as bridge:
        agent = make_agent(turns, await bridge.list_tools(), store=store)
        first = await agent.ainvoke({"messages": [("user", "report")]}, RUN)
        [failed] = tool_messages(first)
        assert failed.status == "error"
        assert "could not be polled" in text(failed)
        assert "the task store is unavailable" in text(failed)
        assert first["messages"][-1].content == "the report failed"  # the run went on
        assert await store.aget(*KEY) is None
        assert tasks.cancelled == tasks.created  # nobody polls it again: it was cancelled

        second = await agent.ainvoke({"messages": [("user", "a shorter one")]}, RUN)
    answered = tool_messages(second)[-1]
    assert (answered.tool_call_id, answered.status) == ("call-1", "success")
    assert text(answered) == "report done after 1 steps"
    assert len(tasks.created) == 2
    assert await store.aget(*KEY) is None


class RecordingStore(InMemoryStore):
    """The agent's store, keeping a copy of every entry written: what a worker killed while
    its task ran leaves behind."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[dict[str, Any]] = []

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        self.written += [dict(op.value) for op in ops if isinstance(op, PutOp) and op.value is not None]
        return await super().abatch(ops)


async def test_a_stored_task_answers_only_the_call_that_asked_for_it() -> None:
    server, tasks = build()
    store = RecordingStore()
    asked_first = {"steps": 2, "delay": 0.01}
    turns = [
        tool_call_turn(("report", asked_first)),
        AIMessage("first"),
        tool_call_turn(("report", {"steps": 1, "delay": 0.01})),  # call-1 again, other arguments
        AIMessage("second"),
        tool_call_turn(("report", asked_first)),  # call-1 again, the first call's arguments
        AIMessage("third"),
    ]
    async with MCPBridge({"jobs": {"server": server, "mode": "legacy"}}, plugins=[mcpbridge_tasks]) as bridge:
        agent = make_agent(turns, await bridge.list_tools(), store=store)
        first = await agent.ainvoke({"messages": [("user", "report")]}, RUN)
        [left] = store.written
        assert text(tool_messages(first)[-1]) == "report done after 2 steps"
        [first_task] = tasks.created

        await store.aput(*KEY, left, index=False)  # as a worker killed before it forgot the task
        second = await agent.ainvoke({"messages": [("user", "a shorter one")]}, RUN)
        answered = tool_messages(second)[-1]
        assert (answered.status, text(answered)) == ("success", "report done after 1 steps")
        assert len(tasks.created) == 2  # its own task, not the first call's

        await store.aput(*KEY, left, index=False)
        third = await agent.ainvoke({"messages": [("user", "the first again")]}, RUN)
    assert text(tool_messages(third)[-1]) == "report done after 2 steps"
    assert tasks.created[2:] == []  # the same question: the first task was resumed, none created
    assert tasks.jobs[first_task].status == "completed"
    assert await store.aget(*KEY) is None


class Caller:
    """A plugin outside the tasks one that gives each call the caller's credentials."""

    mcpbridge_name = "caller"
    mcpbridge_plugin = Plugin(position=40)

    def __init__(self, token: str) -> None:
        self.token = token

    @hookimpl
    def mcpbridge_interceptors(self) -> list[Any]:
        async def as_caller(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            return await handler(request.override(headers={"Authorization": f"Bearer {self.token}"}))

        return [as_caller]


async def test_a_stored_task_is_not_resumed_for_another_caller() -> None:
    """The headers the call carries when it reaches the plugin (the caller's credentials) are
    part of what was asked: the same arguments with other credentials do not resume the task."""
    server, tasks = build()
    store = RecordingStore()
    caller = Caller("one")
    asked = {"steps": 2, "delay": 0.01}
    turns = [tool_call_turn(("report", asked)), AIMessage("first"), tool_call_turn(("report", asked))]
    http = serve_http(server)
    try:
        async with MCPBridge(
            {"jobs": {"url": http.url, "mode": "legacy"}}, plugins=[caller, mcpbridge_tasks]
        ) as bridge:
            agent = make_agent(turns, await bridge.list_tools(), store=store)
            await agent.ainvoke({"messages": [("user", "report")]}, RUN)
            [left] = store.written
            caller.token = "two"
            await store.aput(*KEY, left, index=False)
            result = await agent.ainvoke({"messages": [("user", "again")]}, RUN)
    finally:
        http.stop()
    assert text(tool_messages(result)[-1]) == "report done after 2 steps"
    assert len(tasks.created) == 2
