"""The interceptor: send a task tool's call as an MCP task, poll it to the end with its
status reported as events, fetch its result; cancel it with the run; resume it after a
restart."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from mcp.types import CallToolResult, GetTaskResult, Task, TaskMetadata, Tool

from mcpbridge import (
    ServerConnectionError,
    ServerRequestError,
    TaskHandle,
    ToolCallHandler,
    ToolCallRequest,
    describe,
    error_result,
)
from mcpbridge_tasks import ARTIFACT_TYPE, RESUMED_EVENT, STATUS_EVENT
from mcpbridge_tasks.ledger import Ledger
from mcpbridge_tasks.settings import TasksSettings

logger = logging.getLogger("mcpbridge_tasks")

TERMINAL = frozenset({"completed", "failed", "cancelled"})


class TasksInterceptor:
    """Runs one bridge's task tools as MCP tasks, per its `[plugins.tasks]` settings."""

    def __init__(self, settings: TasksSettings) -> None:
        self._settings = settings

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        """Only the tools that run as tasks."""
        return self._settings.as_task(server_name, tool.name, _task_support(tool))

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        if not self._settings.as_task(request.server_name, request.name, _task_support(request.tool)):
            return await handler(request)  # an outer interceptor renamed the call to a tool that is not one
        ledger = Ledger.of(request) if self._settings.resume else None
        try:
            started = await self._start(request, handler, ledger)
            if not isinstance(started, TaskHandle):
                return started  # the server's error result (or an inner interceptor's answer)
            request.artifact.append({"type": ARTIFACT_TYPE, "task_id": started.task.task_id})
            return await _Run(request, started, self._settings).finish()
        finally:  # the call ended, however: its task is nothing to resume (a killed worker never gets here)
            if ledger is not None:
                await asyncio.shield(ledger.forget())

    async def _start(self, request: ToolCallRequest, handler: ToolCallHandler, ledger: Ledger | None) -> Any:
        """The task this call resumes (its id is in the ledger) or a new one."""
        known = await ledger.task_id() if ledger is not None else None
        if known is not None:
            try:
                resumed = await handler(request.override(task=known))
            except ServerRequestError as exc:  # expired or unknown: the server forgot it
                logger.warning("mcpbridge-tasks: task %s cannot be resumed (%s); starting a new one", known, exc)
            else:
                if isinstance(resumed, TaskHandle):
                    request.notify(RESUMED_EVENT, task_id=known)
                return resumed
        started = await handler(request.override(task=TaskMetadata(ttl=self._settings.ttl)))
        if isinstance(started, TaskHandle) and ledger is not None:
            await ledger.record(request, started.task.task_id)
        return started


def _task_support(tool: Tool | None) -> str | None:
    execution = tool.execution if tool is not None else None
    return execution.task_support if execution is not None else None


class _Run:
    """One task, polled until it ends."""

    def __init__(self, request: ToolCallRequest, handle: TaskHandle, settings: TasksSettings) -> None:
        self.request = request
        self.handle = handle
        self.settings = settings
        self.steps = 0
        self.last: dict[str, Any] | None = None

    async def finish(self) -> CallToolResult:
        """The task's result; on cancellation (the agent run was cancelled) the task is
        cancelled too, and the cancellation goes on."""
        try:
            return await asyncio.wait_for(self._poll(), self.settings.max_duration)
        except TimeoutError:
            await self._cancel()
            return error_result(
                f"MCP task {self.handle.task.task_id} of {self.request.name!r} did not finish within "
                f"max_duration={self.settings.max_duration:g} s and was cancelled; raise `max_duration` "
                "in [plugins.tasks] if it needs longer"
            )
        except asyncio.CancelledError:
            await asyncio.shield(self._cancel())
            raise

    async def _poll(self) -> CallToolResult:
        task: Task = self.handle.task
        self._report(task)
        while task.status not in TERMINAL:
            if task.status == "input_required":
                # The server asks its questions (elicitation) while answering tasks/result,
                # which holds the answer until the task ends.
                return await self._result()
            await asyncio.sleep(self._interval(task))
            try:
                task = await self.handle.get()
            except ServerRequestError as exc:  # nobody polls it again: cancelled, the call fails
                await self._cancel()
                return error_result(f"MCP task {task.task_id} of {self.request.name!r} could not be polled: {exc}")
            self._report(task)
        if task.status == "cancelled":
            return error_result(f"MCP task {task.task_id} of {self.request.name!r} was cancelled by the server")
        return await self._result()

    async def _result(self) -> CallToolResult:
        try:
            return await self.handle.result()
        except ServerRequestError as exc:  # a failed task may answer tasks/result with an error
            return error_result(f"MCP task {self.handle.task.task_id} of {self.request.name!r} failed: {exc}")

    def _interval(self, task: Task) -> float:
        suggested = task.poll_interval / 1000 if task.poll_interval is not None else 1.0
        return min(max(suggested, self.settings.poll_min), self.settings.poll_max)

    def _report(self, task: Task | GetTaskResult) -> None:
        """A `task.status` update on every change; each new status message as progress (its
        count so far as `progress`: tasks report no amounts)."""
        status, last = _status(task), self.last
        if status == last:
            return
        self.last = status
        self.request.notify(STATUS_EVENT, **status)
        if task.status_message and (last is None or task.status_message != last["message"]):
            self.steps += 1
            self.request.notify("progress", progress=self.steps, total=None, message=task.status_message)

    async def _cancel(self) -> None:
        """`tasks/cancel`, bounded: a server that does not answer cannot hold the run."""
        task_id = self.handle.task.task_id
        try:
            await asyncio.wait_for(self.handle.cancel(), self.settings.cancel_timeout)
            self.request.notify(STATUS_EVENT, task_id=task_id, status="cancelled", message="cancelled by the client")
        except (TimeoutError, ServerRequestError, ServerConnectionError) as exc:
            logger.warning("mcpbridge-tasks: cancelling task %s failed: %s", task_id, describe(exc))


def _status(task: Task) -> dict[str, Any]:
    return {"task_id": task.task_id, "status": task.status, "message": task.status_message}
