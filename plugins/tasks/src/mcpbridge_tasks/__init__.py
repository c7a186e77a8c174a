"""mcpbridge-tasks: MCP tools that run as tasks (protocol 2025-11-25) — created, polled with
their status streamed as events, cancelled with the agent run, resumed after a restart.

    [plugins.tasks]
    optional = [{server = "research", tool = "deep_*"}]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, Plugin, hookimpl, lazy_exports
from mcpbridge_tasks.settings import TasksSettings

if TYPE_CHECKING:
    from mcpbridge_tasks.interceptor import TasksInterceptor
    from mcpbridge_tasks.ledger import Ledger

# The interceptor and the ledger import mcp and LangGraph: on first use only.
__getattr__ = lazy_exports(
    __name__, {"Ledger": "mcpbridge_tasks.ledger", "TasksInterceptor": "mcpbridge_tasks.interceptor"}
)

__all__ = [
    "ARTIFACT_TYPE",
    "NAMESPACE",
    "RESUMED_EVENT",
    "STATUS_EVENT",
    "Ledger",
    "TasksInterceptor",
    "TasksSettings",
]

ARTIFACT_TYPE = "mcpbridge_tasks"
"""The `type` of the entry this plugin adds to a call's artifact."""
STATUS_EVENT = "task.status"
"""The event a task's status is reported as, on every change."""
RESUMED_EVENT = "task.resumed"
"""The event a call that picks up an earlier task is reported as."""
NAMESPACE = "mcpbridge_tasks"
"""The first part of the store namespace a run's task ids are kept under (then the thread id)."""

# 57: inside the plugins that decide whether a call runs at all or answer its server's
# questions (up to 55), outside those that repeat or decorate the creating call (60 on).
mcpbridge_plugin = Plugin(settings=TasksSettings, position=57, answers=("tasks",), artifacts=(ARTIFACT_TYPE,))


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[TasksInterceptor]:
    from mcpbridge_tasks.interceptor import TasksInterceptor

    return [TasksInterceptor(context.settings_of(TasksSettings))]


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(TasksSettings)
    optional = f"; also {len(settings.optional)} rule(s) for optional ones" if settings.optional else ""
    resume = "resumes tasks through the agent's store" if settings.resume else "does not resume tasks"
    return f"runs task-required tools as MCP tasks{optional}; {resume}"
