"""Where a run keeps the ids of its tasks: the agent's LangGraph store (`runtime.store`,
e.g. `AsyncSqliteStore` / `AsyncPostgresStore`), under `("mcpbridge_tasks", thread_id)`
with the model's tool-call id as key. A worker that restarts
the run from its checkpoint re-runs the tool call with the same thread and tool-call id,
finds the id and polls that task instead of creating another.

The store belongs to the agent's loop, which is not the chain's when the bridge runs its own
loop thread (`with MCPBridge(...)`, as under `langgraph dev`): every store call is awaited
there, through `on_caller_loop`."""

from __future__ import annotations

from dataclasses import dataclass

from langgraph.store.base import BaseStore

from mcpbridge import ToolCallRequest, on_caller_loop, thread_id
from mcpbridge_tasks.names import NAMESPACE


@dataclass(frozen=True, slots=True)
class Ledger:
    """The store entry of one tool call's task."""

    store: BaseStore
    namespace: tuple[str, ...]
    key: str

    @classmethod
    def of(cls, request: ToolCallRequest) -> Ledger | None:
        """The entry for this call, or None outside a graph run with a store and a thread."""
        store = getattr(request.runtime, "store", None)
        thread = thread_id(request)
        if not isinstance(store, BaseStore) or thread is None or not request.tool_call_id:
            return None
        return cls(store, (NAMESPACE, thread), request.tool_call_id)

    async def task_id(self, request: ToolCallRequest) -> str | None:
        """The id recorded for this call's (server, tool), if any."""
        item = await on_caller_loop(self.store.aget(self.namespace, self.key))
        value = item.value if item is not None else {}
        same = value.get("server") == request.server_name and value.get("tool") == request.name
        task_id = value.get("task_id")
        return task_id if same and isinstance(task_id, str) else None

    async def record(self, request: ToolCallRequest, task_id: str) -> None:
        value = {"task_id": task_id, "server": request.server_name, "tool": request.name}
        await on_caller_loop(self.store.aput(self.namespace, self.key, value, index=False))

    async def forget(self) -> None:
        await on_caller_loop(self.store.adelete(self.namespace, self.key))
