"""The requests of an MCP task (protocol 2025-11-25) on a connection's session: the
task-augmented `tools/call` that creates it and the follow-ups (`tasks/get`, `tasks/result`,
`tasks/cancel`) its `TaskHandle` sends."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias, cast

from mcp.client.session import ClientSession
from mcp.types import (
    CallToolRequest,
    CallToolRequestParams,
    CallToolResult,
    CancelTaskRequest,
    CancelTaskRequestParams,
    CancelTaskResult,
    CreateTaskResult,
    GetTaskPayloadRequest,
    GetTaskPayloadRequestParams,
    GetTaskRequest,
    GetTaskRequestParams,
    GetTaskResult,
    RequestParamsMeta,
    Task,
    TaskMetadata,
)

from mcpbridge._base.pipeline import TaskHandle, ToolCallRequest


async def create_task(
    session: ClientSession,
    request: ToolCallRequest,
    task: TaskMetadata,
    limit: float,
    progress: Any,
) -> CallToolResult | CreateTaskResult:
    """A task-augmented `tools/call`. The SDK's `send_request` checks a `tools/call` answer
    against `CallToolResult` only (mcp 2.3 has no client for 2025-11-25 tasks), so this one
    request goes to the session's dispatcher with the same stamping; its answer is parsed
    here, and the server's error result stays an error result."""
    params = CallToolRequestParams(
        name=request.name, arguments=request.args, task=task, _meta=cast(RequestParamsMeta | None, request.meta)
    )
    data = CallToolRequest(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
    options: Any = {"timeout": limit}
    if progress is not None:
        options["on_progress"] = progress
    session._stamp(data, options)  # private SDK members: see the docstring
    raw = await session._dispatcher.send_raw_request(data["method"], data.get("params"), options)
    if "task" in raw:
        return CreateTaskResult.model_validate(raw, by_name=False)
    return CallToolResult.model_validate(raw, by_name=False)


TaskSend: TypeAlias = Callable[[str, Callable[[ClientSession, float], Awaitable[Any]]], Awaitable[Any]]
"""`send(what, run)`: run one request on the connection's session, with the call's time limit."""


def task_getter(task_id: str) -> Callable[[ClientSession, float], Awaitable[GetTaskResult]]:
    def get(session: ClientSession, limit: float) -> Awaitable[GetTaskResult]:
        request = GetTaskRequest(params=GetTaskRequestParams(task_id=task_id))
        return session.send_request(request, GetTaskResult, request_read_timeout_seconds=limit)

    return get


def task_handle(task: Task, tool: str, send: TaskSend) -> TaskHandle:
    """The follow-up requests of one task, sent through `send`."""
    task_id = task.task_id

    async def get() -> GetTaskResult:
        result: GetTaskResult = await send(f"tasks/get {task_id}", task_getter(task_id))
        return result

    async def payload(session: ClientSession, limit: float) -> CallToolResult:
        request = GetTaskPayloadRequest(params=GetTaskPayloadRequestParams(task_id=task_id))
        result = await session.send_request(request, CallToolResult, request_read_timeout_seconds=limit)
        if not result.is_error:
            await session.validate_tool_result(tool, result)
        return result

    async def result() -> CallToolResult:
        answer: CallToolResult = await send(f"tasks/result {task_id}", payload)
        return answer

    def cancelling(session: ClientSession, limit: float) -> Awaitable[CancelTaskResult]:
        request = CancelTaskRequest(params=CancelTaskRequestParams(task_id=task_id))
        return session.send_request(request, CancelTaskResult, request_read_timeout_seconds=limit)

    async def cancel() -> CancelTaskResult:
        answer: CancelTaskResult = await send(f"tasks/cancel {task_id}", cancelling)
        return answer

    return TaskHandle(task=task, get=get, result=result, cancel=cancel)
