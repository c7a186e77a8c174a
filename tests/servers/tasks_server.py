"""An mcp 2.x server with task tools (MCP tasks, protocol 2025-11-25), served through the
`TaskTools` middleware (mcp 2.3's server has no tasks support). Run as a script for stdio.

Tools: `report(steps, delay)` (task required): "step i of n" status messages, then a text
result; `quick(text)` (task optional); `task_log()`: the ids created and cancelled so far.
"""

from __future__ import annotations

import asyncio
import json

from mcp.server.mcpserver import MCPServer
from mcpbridge_demo.task_server import Status, TaskTools


async def report(status: Status, steps: int = 3, delay: float = 0.2) -> str:
    for step in range(1, steps + 1):
        status(f"step {step} of {steps}")
        await asyncio.sleep(delay)
    return f"report done after {steps} steps"


async def quick(status: Status, text: str) -> str:
    return f"quick: {text}"


def build() -> tuple[MCPServer, TaskTools]:
    tasks = TaskTools({"report": report, "quick": quick}, {"report": "required", "quick": "optional"})
    server = MCPServer("tasks", middleware=[tasks])

    @server.tool(name="report", structured_output=False)
    def listed_report(steps: int = 3, delay: float = 0.2) -> str:
        """A long report (runs as a task only)."""
        raise AssertionError("runs as a task only")

    @server.tool(name="quick", structured_output=False)
    async def listed_quick(text: str) -> str:
        """Answers at once; may run as a task."""
        return await quick(lambda message: None, text)

    @server.tool()
    def task_log() -> str:
        """The task ids created and cancelled so far, as JSON."""
        return json.dumps({"created": tasks.created, "cancelled": tasks.cancelled})

    return server, tasks


if __name__ == "__main__":
    build()[0].run("stdio")
