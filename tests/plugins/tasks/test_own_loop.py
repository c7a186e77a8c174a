"""mcpbridge-tasks under a bridge on its own loop thread (`with MCPBridge(...)`, as under
`langgraph dev`), with a LangGraph agent's real store: the store belongs to the agent's loop
and the chain runs on the bridge's, so the ledger's calls are run on the store's loop. The
stores: InMemoryStore, the batched store langgraph dev serves (AsyncBatchedBaseStore, whose
requests are served by a task of the loop it started on) and AsyncPostgresStore."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable
from typing import Any

import mcpbridge_tasks
import pytest
from langgraph.store.base import BaseStore, Op, Result
from langgraph.store.base.batch import AsyncBatchedBaseStore
from langgraph.store.memory import InMemoryStore

from mcpbridge import MCPBridge
from mcpbridge.testing import make_agent, tool_call_turn
from tests.plugins.tasks.entries import forgotten_entry
from tests.servers.tasks_server import build

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

KEY = ((mcpbridge_tasks.NAMESPACE, "t1"), "call-1")


class BatchedStore(AsyncBatchedBaseStore):
    """langgraph dev's store (langgraph_runtime_inmem.store.BatchedStore): an InMemoryStore
    behind the batching task of the loop that first used it."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = InMemoryStore()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self.inner.abatch(ops)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self.inner.batch(ops)


async def postgres() -> AsyncIterator[BaseStore]:
    url = os.environ.get("MCPBRIDGE_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("MCPBRIDGE_TEST_POSTGRES_URL is not set")
    from langgraph.store.postgres import AsyncPostgresStore

    async with AsyncPostgresStore.from_conn_string(url) as store:
        await store.setup()
        await store.adelete(*KEY)
        yield store
        await store.adelete(*KEY)


async def in_memory() -> AsyncIterator[BaseStore]:
    yield InMemoryStore()


async def batched() -> AsyncIterator[BaseStore]:
    yield BatchedStore()


@pytest.fixture(params=[in_memory, batched, postgres], ids=["in_memory", "batched", "postgres"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[BaseStore]:
    async for made in request.param():
        yield made


async def test_a_bridge_on_its_own_loop_reads_and_clears_the_agents_store(store: BaseStore) -> None:
    """The store names a task the server no longer knows: the ledger reads it on the store's
    loop, a new task runs, and the entry is gone at the end (the call succeeds)."""
    server, tasks = build()
    asked = {"steps": 1, "delay": 0.01}
    await store.aput(*KEY, forgotten_entry("report", asked), index=False)
    with MCPBridge({"jobs": {"server": server, "mode": "legacy"}}, plugins=[mcpbridge_tasks]) as bridge:
        turn = tool_call_turn(("report", asked))
        agent = make_agent([turn], bridge.list_tools_sync(), store=store)
        result: dict[str, Any] = await agent.ainvoke(
            {"messages": [("user", "go")]}, {"configurable": {"thread_id": "t1"}}
        )
    [message] = [m for m in result["messages"] if m.type == "tool"]
    assert (message.status, message.content) == ("success", [{"type": "text", "text": "report done after 1 steps"}])
    assert len(tasks.created) == 1
    assert await store.aget(*KEY) is None
