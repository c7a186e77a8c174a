"""An mcp 2.x server with a task tool (MCP tasks, protocol 2025-11-25). mcp 2.3's server
has no tasks support, so a `Server.middleware` answers what the tasks spec adds: a
`tools/call` with `task` creates one and runs the tool in the background; `tasks/get`,
`tasks/result`, `tasks/cancel` and `tasks/list` answer from memory; `tools/list` marks the
task tools `execution.taskSupport`. Run as a script for stdio (`http` for streamable HTTP
on the port given second).

Tools: `report(steps, delay)` (task required): "step i of n" status messages, then a text
result; `quick(text)` (task optional); `task_log()`: the ids created and cancelled so far.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import sys
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp import MCPError
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.types import INVALID_PARAMS

LEGACY = "2025-11-25"
SUPPORT = {"report": "required", "quick": "optional"}
Status = Callable[[str], None]


async def report(steps: int, delay: float, status: Status) -> str:
    for step in range(1, steps + 1):
        status(f"step {step} of {steps}")
        await asyncio.sleep(delay)
    return f"report done after {steps} steps"


async def quick(text: str, status: Status) -> str:
    return f"quick: {text}"


WORK: dict[str, Callable[..., Awaitable[str]]] = {"report": report, "quick": quick}


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


@dataclass
class Job:
    task_id: str
    ttl: int | None
    status: str = "working"
    message: str | None = None
    created: str = field(default_factory=_now)
    updated: str = field(default_factory=_now)
    result: dict[str, Any] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    runner: asyncio.Task[None] | None = None

    def wire(self) -> dict[str, Any]:
        task = {"taskId": self.task_id, "status": self.status, "createdAt": self.created}
        task |= {"lastUpdatedAt": self.updated, "ttl": self.ttl, "pollInterval": 100}
        return task | ({"statusMessage": self.message} if self.message else {})

    def set(self, status: str, message: str | None = None) -> None:
        self.status, self.message, self.updated = status, message or self.message, _now()


class Tasks:
    """The server's tasks, and what clients did with them (for assertions)."""

    def __init__(self) -> None:
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
                if tool["name"] in SUPPORT:
                    tool["execution"] = {"taskSupport": SUPPORT[tool["name"]]}
            return listed
        if method == "tools/call" and params.get("name") in WORK:
            if "task" in params:
                return self._create(params)
            if SUPPORT[params["name"]] == "required":
                return {"content": [{"type": "text", "text": "report requires task augmentation"}], "isError": True}
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
        job = Job(uuid.uuid4().hex, params["task"].get("ttl"))
        self.jobs[job.task_id] = job
        self.created.append(job.task_id)
        job.runner = asyncio.get_running_loop().create_task(self._run(job, params["name"], params.get("arguments")))
        return {"task": job.wire()}

    async def _run(self, job: Job, name: str, arguments: Mapping[str, Any] | None) -> None:
        try:
            text = await WORK[name](**(arguments or {}), status=lambda message: job.set("working", message))
            job.result = {"content": [{"type": "text", "text": text}], "isError": False}
            job.set("completed")
        except asyncio.CancelledError:
            job.result = {"content": [{"type": "text", "text": "cancelled"}], "isError": True}
        finally:
            job.done.set()


def build() -> tuple[MCPServer, Tasks]:
    tasks = Tasks()
    server = MCPServer("tasks", middleware=[tasks])

    @server.tool(structured_output=False)
    def report(steps: int = 3, delay: float = 0.2) -> str:
        """A long report (runs as a task only)."""
        raise AssertionError("runs as a task only")

    @server.tool(structured_output=False)
    def quick(text: str) -> str:
        """Answers at once; may run as a task."""
        return f"quick: {text}"

    @server.tool()
    def task_log() -> str:
        """The task ids created and cancelled so far, as JSON."""
        return json.dumps({"created": tasks.created, "cancelled": tasks.cancelled})

    return server, tasks


if __name__ == "__main__":
    app, _ = build()
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        import uvicorn

        uvicorn.run(app.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
    else:
        app.run("stdio")
