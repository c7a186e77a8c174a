"""A worker process for the restart test: runs (phase `start`) or resumes (phase `resume`)
an agent on thread "t1" whose checkpoints and store live in one SQLite file, against the
tasks server at `url`. Prints the final message of the run."""

from __future__ import annotations

import asyncio
import sys

import mcpbridge_tasks
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.sqlite.aio import AsyncSqliteStore

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel, tool_call_turn


async def main(url: str, database: str, phase: str) -> None:
    config = {"configurable": {"thread_id": "t1"}}
    async with (
        AsyncSqliteSaver.from_conn_string(database) as saver,
        AsyncSqliteStore.from_conn_string(database) as store,
        MCPBridge({"jobs": {"url": url, "mode": "legacy"}}, plugins=[mcpbridge_tasks]) as bridge,
    ):
        await store.setup()
        tools = await bridge.list_tools()
        first = [tool_call_turn(("report", {"steps": 12, "delay": 0.25}))] if phase == "start" else []
        model = ScriptedChatModel(turns=[*first, AIMessage("written")])
        graph = create_agent(model, tools, checkpointer=saver, store=store)
        result = await graph.ainvoke({"messages": [("user", "report")]} if phase == "start" else None, config)
        print(result["messages"][-2].content, flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
