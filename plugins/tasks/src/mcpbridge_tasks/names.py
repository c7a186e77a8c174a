"""Names other code reads (the artifact entry's type, event names), in a module of their
own so that the package can give them without importing its interceptor (mcp, LangChain)."""

from __future__ import annotations

ARTIFACT_TYPE = "mcpbridge_tasks"
"""The `type` of the entry this plugin adds to a call's artifact."""
STATUS_EVENT = "task.status"
"""The event a task's status is reported as, on every change."""
RESUMED_EVENT = "task.resumed"
"""The event a call that picks up an earlier task is reported as."""
NAMESPACE = "mcpbridge_tasks"
"""The first part of the store namespace a run's task ids are kept under (then the thread id)."""
