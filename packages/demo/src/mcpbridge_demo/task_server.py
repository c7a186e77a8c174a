"""MCP tasks (protocol 2025-11-25) for an mcp 2.x `MCPServer`, which has no tasks support:
a `Server.middleware` that runs the tools named in `work` as tasks, for the inspector demo
(a task card with live status) and tests. In memory, one process; not for production.

A `tools/call` with `task` creates a task and runs `work[name](status, **arguments)` in the
background (`status(message)` updates its status message); `tasks/get`, `tasks/result`,
`tasks/cancel` and `tasks/list` answer from memory; `tools/list` marks each tool with its
`execution.taskSupport`. A "required" tool called without `task` gets an error result.
"""

from __future__ import annotations

import asyncio
import datetime
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp import MCPError
from mcp.server.context import ServerRequestContext
from mcp.types import INVALID_PARAMS

LEGACY = "2025-11-25"
Status = Callable[[str], None]
Work = Callable[..., Awaitable[str]]
"""`async (status, **arguments) -> text`: a task's work; its text becomes the result."""


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


@dataclass
class Job:
    """One task and its state."""

    task_id: str
    ttl: int | None
    poll_ms: int
    status: str = "working"
    message: str | None = None
    created: str = field(default_factory=_now)
    updated: str = field(default_factory=_now)
    result: dict[str, Any] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    runner: asyncio.Task[None] | None = None

    def wire(self) -> dict[str, Any]:
        task: dict[str, Any] = {"taskId": self.task_id, "status": self.status, "createdAt": self.created}
        task |= {"lastUpdatedAt": self.updated, "ttl": self.ttl, "pollInterval": self.poll_ms}
        return task | ({"statusMessage": self.message} if self.message else {})

    def set(self, status: str, message: str | None = None) -> None:
        self.status, self.message, self.updated = status, message or self.message, _now()


class TaskTools:
    """The middleware: `MCPServer(name, middleware=[TaskTools(work, support)])`. `created` and
    `cancelled` list task ids in order (what clients did, for tests and the demo's log)."""

    def __init__(self, work: Mapping[str, Work], support: Mapping[str, str], poll_ms: int = 100) -> None:
        self.work = dict(work)
        self.support = dict(support)
        self.poll_ms = poll_ms
        self.jobs: dict[str, Job] = {}
        self.created: list[str] = []
        self.cancelled: list[str] = []

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        if ctx.protocol_version != LEGACY:
            return await call_next(ctx)
        params: Mapping[str, Any] = ctx.params or {}
        method = ctx.method
        if method == "tools/list":
            listed = await call_next(ctx)
            for tool in listed.get("tools", []):
                if tool["name"] in self.support:
                    tool["execution"] = {"taskSupport": self.support[tool["name"]]}
            return listed
        name = params.get("name")
        if method == "tools/call" and name in self.work:
            if "task" in params:
                return self._create(params)
            if self.support.get(name) == "required":
                text = f"Tool {name} requires task augmentation (taskSupport: 'required')"
                return {"content": [{"type": "text", "text": text}], "isError": True}
            return await call_next(ctx)
        if method == "tasks/list":
            return {"tasks": [job.wire() for job in self.jobs.values()]}
        if method not in ("tasks/get", "tasks/result", "tasks/cancel"):
            return await call_next(ctx)
        job = self.jobs.get(str(params.get("taskId")))
        if job is None:
            raise MCPError(code=INVALID_PARAMS, message=f"unknown task {params.get('taskId')!r}")
        if method == "tasks/get":
            return job.wire()
        if method == "tasks/result":
            await job.done.wait()
            return job.result
        if job.runner is not None:
            job.runner.cancel()
        job.set("cancelled", "cancelled by the client")
        self.cancelled.append(job.task_id)
        return job.wire()

    def _create(self, params: Mapping[str, Any]) -> dict[str, Any]:
        job = Job(uuid.uuid4().hex, (params.get("task") or {}).get("ttl"), self.poll_ms)
        self.jobs[job.task_id] = job
        self.created.append(job.task_id)
        job.runner = asyncio.get_running_loop().create_task(self._run(job, params["name"], params.get("arguments")))
        return {"task": job.wire()}

    async def _run(self, job: Job, name: str, arguments: Mapping[str, Any] | None) -> None:
        try:
            text = await self.work[name](lambda message: job.set("working", message), **(arguments or {}))
            job.result = {"content": [{"type": "text", "text": text}], "isError": False}
            job.set("completed")
        except asyncio.CancelledError:
            job.result = {"content": [{"type": "text", "text": "cancelled"}], "isError": True}
        except Exception as exc:  # the task failed: its result says why
            job.result = {"content": [{"type": "text", "text": str(exc)}], "isError": True}
            job.set("failed", str(exc))
        finally:
            job.done.set()
