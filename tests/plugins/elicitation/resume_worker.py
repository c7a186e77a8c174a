"""Resume a paused run in a fresh process: `python resume_worker.py DB URL THREAD RESUME_JSON`.

The agent (approval + elicitation, found through their entry points) is rebuilt from
scratch; only the SQLite checkpoint links this process to the one that paused. Prints the
resumed run's ToolMessage texts and any new interrupt ids as JSON.
"""

from __future__ import annotations

import asyncio
import json
import sys

from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel


async def main(db: str, url: str, thread: str, resume: dict[str, object]) -> None:
    config = {"configurable": {"thread_id": thread}}
    servers = {"shop": {"url": url, "mode": "modern"}}
    async with (
        AsyncSqliteSaver.from_conn_string(db) as saver,
        MCPBridge(servers, plugins=["approval", "elicitation"]) as bridge,
    ):
        agent = create_agent(ScriptedChatModel(turns=[]), await bridge.list_tools(), checkpointer=saver)
        result = await agent.ainvoke(Command(resume=resume), config)
    texts = [m.content[0]["text"] for m in result["messages"] if isinstance(m, ToolMessage) and m.status == "success"]
    print(json.dumps({"texts": texts, "interrupts": [i.id for i in result.get("__interrupt__", [])]}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])))
