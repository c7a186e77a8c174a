"""A weather / calculator server for the events tests, and helpers to run a scripted agent."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcpbridge_events.demo import UNTRUSTED_PAGE
from pydantic import BaseModel

from mcpbridge.demo.model import ScriptedChatModel

USER = {"messages": [("user", "go")]}


class Forecast(BaseModel):
    city: str
    temperature_c: float
    conditions: str


def build_server(gate: asyncio.Event | None = None) -> MCPServer:
    """`get_forecast` reports progress and, given a `gate`, waits for it before answering."""
    server = MCPServer("weather")

    @server.tool()
    async def get_forecast(city: str, ctx: Context) -> Forecast:
        """Forecast for a city."""
        await ctx.report_progress(1, 2, "asking the station")
        if gate is not None:
            await gate.wait()
        await ctx.report_progress(2, 2, "done")
        return Forecast(city=city, temperature_c=4.5, conditions="light snow")

    @server.tool()
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @server.tool()
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        if b == 0:
            raise ToolError("division by zero")
        return a / b

    @server.tool(structured_output=False)
    def fetch_page(url: str) -> str:
        """Untrusted HTML."""
        return UNTRUSTED_PAGE

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return "done"

    return server


def ask(*calls: tuple[str, dict[str, Any]], prefix: str = "call") -> AIMessage:
    """An AIMessage asking for `calls` at once (ids `<prefix>-1`, `<prefix>-2`, ...)."""
    return AIMessage(
        "",
        tool_calls=[
            {"name": name, "args": args, "id": f"{prefix}-{i}", "type": "tool_call"}
            for i, (name, args) in enumerate(calls, 1)
        ],
    )


def agent(tools: Sequence[Any], *turns: AIMessage) -> Any:
    return create_agent(ScriptedChatModel(turns=list(turns)), list(tools), checkpointer=InMemorySaver())


async def stream(graph: Any, inputs: Any, stream_mode: Any, thread: str = "t1", **options: Any) -> list[Any]:
    """Every chunk of one `astream` run."""
    config = {"configurable": {"thread_id": thread}}
    return [chunk async for chunk in graph.astream(inputs, config, stream_mode=stream_mode, **options)]


def lifecycle(chunks: Sequence[Any]) -> list[dict[str, Any]]:
    """The events plugin's events among `(mode, data)` chunks, or bare custom chunks."""
    found = []
    for chunk in chunks:
        data = chunk[1] if isinstance(chunk, tuple) and chunk[0] == "custom" else chunk
        if isinstance(data, dict) and data.get("type") == "mcpbridge.tool_call":
            found.append(data)
    return found
