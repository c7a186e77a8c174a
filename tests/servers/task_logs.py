"""A server whose `chores(who, round, about)` tool runs only as an MCP task (protocol
2025-11-25, through the `TaskTools` middleware): while a client waits on `tasks/result`, it
logs a line on that request's stream naming, in `_meta` (related-task), the task of `about`
(the caller's own by default, another caller's of the same round when a test wants a server
that mixes them up). The calls of a round meet first, so they are all waiting together.
`python -m tests.servers.task_logs` serves it over stdio."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.types import LoggingMessageNotification, LoggingMessageNotificationParams
from mcpbridge_demo.task_server import Status, TaskTools

from tests.servers import tenants

RELATED_TASK = "io.modelcontextprotocol/related-task"

TRANSPORTS = ("in-process legacy", "http legacy", "sse legacy", "stdio legacy")
"""Tasks are a 2025-11-25 (legacy) feature: every transport in that era."""
TIED = frozenset({"in-process legacy", "http legacy"})
"""Those on which a message also comes with the request it answers (`tenants.TIED`)."""


async def chores(status: Status, who: str, round: str, about: str = "") -> str:
    return f"chores of {who} done"


class Chatter:
    """Middleware: records whose task each is, and logs while `tasks/result` waits."""

    def __init__(self) -> None:
        self.rounds = tenants.Rounds()
        self.tasks: dict[str, dict[str, Any]] = {}
        """task id → the arguments of the call that created it."""

    def task_of(self, who: str, round_id: str) -> str:
        return next(task for task, args in self.tasks.items() if (args["who"], args["round"]) == (who, round_id))

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        params: Mapping[str, Any] = ctx.params or {}
        if ctx.method == "tools/call" and "task" in params:
            created = await call_next(ctx)
            self.tasks[created["task"]["taskId"]] = dict(params.get("arguments") or {})
            return created
        if ctx.method == "tasks/result":
            args = self.tasks[str(params.get("taskId"))]
            who, round_id, about = args["who"], args["round"], args.get("about") or args["who"]
            await self.rounds.meet(round_id, "waiting", who, 2)
            meta = {RELATED_TASK: {"taskId": self.task_of(about, round_id)}}
            line = LoggingMessageNotificationParams(level="info", data=f"task log of {who} about {about}", _meta=meta)
            await ctx.session.send_notification(LoggingMessageNotification(params=line), ctx.request_id)
            await self.rounds.meet(round_id, "logged", who, 2)
        return await call_next(ctx)


def build() -> MCPServer:
    tasks = TaskTools({"chores": chores}, {"chores": "required"}, poll_ms=20)
    server = MCPServer("task_logs", middleware=[Chatter(), tasks])

    @server.tool(name="chores", structured_output=False)
    def listed_chores(who: str, round: str, about: str = "") -> str:
        """Chores (runs as a task only)."""
        raise AssertionError("runs as a task only")

    return server


def shared(transport: str) -> AbstractContextManager[dict[str, Any]]:
    """The server config of one `transport` (of `TRANSPORTS`), served while the block runs."""
    return tenants.shared(transport, build, "tests.servers.task_logs")


if __name__ == "__main__":
    build().run("stdio")
