"""Where a run keeps the ids of its tasks: the agent's LangGraph store (`runtime.store`,
e.g. `AsyncSqliteStore` / `AsyncPostgresStore`), under `("mcpbridge_tasks", thread_id)`
with the model's tool-call id as key. A worker that restarts the run from its checkpoint
re-runs the tool call with the same thread and tool-call id, finds the id and polls that
task instead of creating another.

An entry names what was asked (server, tool, and a digest of the arguments and the headers
the call carries): a call with the same tool-call id that asks something else (its
arguments edited in the thread's state, say) never gets another call's task.

The store belongs to the agent's loop, which is not the chain's when the bridge runs its own
loop thread (`with MCPBridge(...)`, as under `langgraph dev`): every store call is awaited
there, through `on_caller_loop`."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from langgraph.store.base import BaseStore

from mcpbridge import ToolCallRequest, on_caller_loop, thread_id
from mcpbridge_tasks import NAMESPACE

_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr).encode


def asked(request: ToolCallRequest) -> str:
    """What the call asks, as a SHA-256 digest: its server, tool, arguments and headers (the
    caller's, e.g. credentials an outer interceptor set; names in lower case)."""
    headers = sorted((name.lower(), value) for name, value in (request.headers or {}).items())
    what = [request.server_name, request.name, request.args, headers]
    try:
        material = _canonical(what)
    except (TypeError, ValueError):  # keys JSON cannot sort: at worst a resumable task is started anew
        material = repr(what)
    return hashlib.sha256(material.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Ledger:
    """The store entry of one tool call's task."""

    store: BaseStore
    namespace: tuple[str, ...]
    key: str
    asked: str
    """The digest of what the call asks (`asked`): an entry with another is not this call's."""

    @classmethod
    def of(cls, request: ToolCallRequest) -> Ledger | None:
        """The entry for this call, or None outside a graph run with a store and a thread."""
        store = getattr(request.runtime, "store", None)
        thread = thread_id(request)
        if not isinstance(store, BaseStore) or thread is None or not request.tool_call_id:
            return None
        return cls(store, (NAMESPACE, thread), request.tool_call_id, asked(request))

    async def task_id(self) -> str | None:
        """The id recorded for this very call (same thread, tool-call id, and what it asks), if any."""
        item = await on_caller_loop(self.store.aget(self.namespace, self.key))
        value = item.value if item is not None else {}
        task_id = value.get("task_id")
        return task_id if value.get("asked") == self.asked and isinstance(task_id, str) else None

    async def record(self, request: ToolCallRequest, task_id: str) -> None:
        """Server and tool stay readable (to see what an entry is about); the rest is the digest."""
        value = {"task_id": task_id, "server": request.server_name, "tool": request.name, "asked": self.asked}
        await on_caller_loop(self.store.aput(self.namespace, self.key, value, index=False))

    async def forget(self) -> None:
        await on_caller_loop(self.store.adelete(self.namespace, self.key))
