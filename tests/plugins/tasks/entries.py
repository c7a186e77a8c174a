"""Store entries the tasks plugin would have written, for tests that start from one."""

from __future__ import annotations

from typing import Any

from mcpbridge_tasks.ledger import asked

from mcpbridge import ToolCallRequest


def forgotten_entry(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The entry of a call of `tool` of server "jobs" with `args`, naming a task the server forgot."""
    digest = asked(ToolCallRequest(name=tool, args=args, server_name="jobs"))
    return {"task_id": "gone", "server": "jobs", "tool": tool, "asked": digest}
