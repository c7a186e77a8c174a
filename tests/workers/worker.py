"""A worker process: `python -m tests.workers.worker POSTGRES_URL MCP_URL`.

It reads one JSON command per line on stdin and answers each with one JSON line on stdout.
Only the PostgreSQL checkpoints (and the claim store) connect it to the other workers.

    {"op": "start", "thread": t, "tool": name, "args": {...}, "claims": url | null}
        -> {"interrupts": [payload type, ...]}
    {"op": "state", "thread": t} -> {"messages": [the thread's ToolMessages]}
    {"op": "resume", "thread": t, "answer": value, "claims": url | null, "barrier": path | null}
        -> {"ready": true} (with a barrier, then waits until the file exists), then
           {"messages": [{"status": ..., "content": ...}]} or {"error": type, "message": text}
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.types import Command

from mcpbridge import MCPBridge
from mcpbridge.testing import make_agent, tool_call_turn


def say(**answer: Any) -> None:
    print(json.dumps(answer), flush=True)


async def run(postgres: str, mcp_url: str, command: dict[str, Any]) -> None:
    config = {"configurable": {"thread_id": command["thread"]}}
    plugins = ["approval", "elicitation"] + (["claims"] if command.get("claims") else [])
    settings = {"claims": {"url": command["claims"]}} if command.get("claims") else None
    async with (
        AsyncPostgresSaver.from_conn_string(postgres) as saver,
        MCPBridge({"files": {"url": mcp_url}}, plugins=plugins, plugin_settings=settings) as bridge,
    ):
        tools = await bridge.list_tools()
        if command["op"] == "start":
            agent = make_agent([tool_call_turn((command["tool"], command["args"]))], tools, checkpointer=saver)
            result = await agent.ainvoke({"messages": [("user", "go")]}, config)
            say(interrupts=[item.value["type"] for item in result.get("__interrupt__", [])])
            return
        agent = make_agent([], tools, checkpointer=saver)
        state = await agent.aget_state(config)
        if command["op"] == "state":
            say(messages=tool_messages(state.values["messages"]))
            return
        resume = Command(resume={item.id: command["answer"] for item in state.interrupts})
        if command.get("barrier"):
            say(ready=True)
            await asyncio.to_thread(wait_until_exists, Path(command["barrier"]))
        try:
            result = await agent.ainvoke(resume, config)
        except Exception as exc:
            say(error=type(exc).__name__, message=str(exc))
            return
        say(messages=tool_messages(result["messages"]))


def wait_until_exists(path: Path) -> None:
    """Block until `path` exists: the barrier that releases racing workers together."""
    while not path.exists():
        time.sleep(0.001)


def tool_messages(messages: list[Any]) -> list[dict[str, Any]]:
    return [{"status": m.status, "content": m.content} for m in messages if isinstance(m, ToolMessage)]


async def main(postgres: str, mcp_url: str) -> None:
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        await run(postgres, mcp_url, json.loads(line))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
