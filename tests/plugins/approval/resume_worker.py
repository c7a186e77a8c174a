"""Resume a paused approval in a fresh process: `python resume_worker.py DB URL THREAD DECISION_JSON`.

Prints the resumed run's ToolMessages as JSON lines. The graph is rebuilt from scratch; only
the SQLite checkpoint connects this process to the one that paused.
"""

from __future__ import annotations

import asyncio
import json
import sys

from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command
from mcpbridge_approval import create_approval_resume

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel


async def main(db: str, url: str, thread: str, decision: dict[str, object]) -> None:
    config = {"configurable": {"thread_id": thread}}
    async with (
        AsyncSqliteSaver.from_conn_string(db) as saver,
        MCPBridge({"files": {"url": url}}, plugins=["approval"]) as bridge,
    ):
        agent = create_agent(ScriptedChatModel(turns=[]), await bridge.list_tools(), checkpointer=saver)
        state = await agent.aget_state(config)
        result = await agent.ainvoke(Command(resume=create_approval_resume(state.interrupts, decision)), config)
    for message in result["messages"]:
        if isinstance(message, ToolMessage):
            print(json.dumps({"status": message.status, "content": message.content}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])))
