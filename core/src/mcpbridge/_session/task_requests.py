"""The MCP tasks client (protocol 2025-11-25) on a connection's session: the
task-augmented `tools/call` that creates a task, and the follow-ups (`tasks/get`,
`tasks/result`, `tasks/cancel`) its `TaskHandle` sends, through what the connection offers
every request (`TaskSender`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar, cast

import mcp.types as types
from mcp.client.session import ClientSession
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from mcpbridge._base.pipeline import TaskHandle, ToolCallRequest, error_result
from mcpbridge._base.protocol import Capability
from mcpbridge._compat import send_raw_request
from mcpbridge._session.in_flight import progress_reporter

R = TypeVar("R", bound=BaseModel)
T = TypeVar("T")


class TaskSender(Protocol):
    """What the tasks client needs of a server's connection (`Connection` is one)."""

    name: str
    timeout: float

    async def session(self) -> ClientSession: ...

    def send_for(
        self, request: ToolCallRequest, send: Callable[[ClientSession, float], Awaitable[T]]
    ) -> Awaitable[T]: ...

    def request(
        self, what: str | None, send: Callable[[ClientSession], Awaitable[T]], headers: Mapping[str, str] | None = None
    ) -> Awaitable[T]: ...

    async def output_problem(self, request: ToolCallRequest, result: types.CallToolResult) -> str | None: ...


async def run_as_task(
    connection: TaskSender, request: ToolCallRequest, task: types.TaskMetadata | str
) -> types.CallToolResult | TaskHandle:
    """Create the task (`TaskMetadata`) or look up the one with that id; the handle sends
    its follow-up requests on the same session, with the call's headers and time limit."""
    if (await connection.session()).protocol_version in MODERN_PROTOCOL_VERSIONS:
        return error_result(
            f"MCP tool {request.name!r} on server {connection.name!r} cannot run as an MCP task: the session "
            "speaks protocol 2026-07-28, where tasks are an extension mcpbridge does not speak yet; "
            f'set mode = "legacy" for server {connection.name!r}'
        )
    limit = request.timeout or connection.timeout

    def send(what: str, message: types.Request[Any, Any], answer: type[R]) -> Awaitable[R]:
        def run(session: ClientSession) -> Awaitable[R]:
            return session.send_request(message, answer, request_read_timeout_seconds=limit)

        return connection.request(what, run, headers=request.headers)

    def get(task_id: str) -> Awaitable[types.GetTaskResult]:
        asked = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id))
        return send(f"tasks/get {task_id}", asked, types.GetTaskResult)

    def handle(created: types.Task) -> TaskHandle:
        task_id = created.task_id

        async def payload(session: ClientSession) -> types.CallToolResult:
            asked = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id))
            result = await session.send_request(asked, types.CallToolResult, request_read_timeout_seconds=limit)
            if (problem := await connection.output_problem(request, result)) is not None:
                raise RuntimeError(problem)  # a malformed result, as the SDK's own check raised it
            return result

        cancel = types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
        return TaskHandle(
            task=created,
            get=lambda: get(task_id),
            result=lambda: connection.request(f"tasks/result {task_id}", payload, headers=request.headers),
            cancel=lambda: send(f"tasks/cancel {task_id}", cancel, types.CancelTaskResult),
        )

    if isinstance(task, str):
        return handle(await get(task))
    progress = progress_reporter(request) if request.observers else None

    async def create(session: ClientSession, limit: float) -> types.CallToolResult | types.CreateTaskResult:
        """A task-augmented `tools/call`. The SDK's `send_request` checks a `tools/call` answer
        against `CallToolResult` only (mcp 2.3 has no client for 2025-11-25 tasks), so this one
        request is sent raw with the same stamping (`send_raw_request`); its answer is parsed
        here, and the server's error result stays an error result."""
        meta = cast(types.RequestParamsMeta | None, request.meta)
        params = types.CallToolRequestParams(name=request.name, arguments=request.args, task=task, _meta=meta)
        data = types.CallToolRequest(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
        raw = await send_raw_request(session, data, {"timeout": limit, "on_progress": progress})
        return (types.CreateTaskResult if "task" in raw else types.CallToolResult).model_validate(raw, by_name=False)

    answer = await connection.send_for(request, create)
    return answer if isinstance(answer, types.CallToolResult) else handle(answer.task)


def task_only(
    request: ToolCallRequest, server: str, unanswered: Callable[[Capability | None], str]
) -> types.CallToolResult | None:
    """The error result of an ordinary call to a tool that runs only as an MCP task
    (`execution.taskSupport` "required"); None for any other call."""
    execution = request.tool.execution if request.tool is not None else None
    if execution is None or execution.task_support != "required":
        return None
    return error_result(
        f"MCP tool {request.name!r} on server {server!r} runs only as an MCP task "
        f"(execution.taskSupport 'required'): {unanswered('tasks')}"
    )
