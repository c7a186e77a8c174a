"""The events tests' server (the inspector demo's tools, plus `slow`) and helpers to run a
scripted agent."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage
from mcp.server.mcpserver import MCPServer
from mcpbridge_demo.inspector_demo import build_demo_server

from mcpbridge import ToolCallHandler, ToolCallInterceptor, ToolCallRequest
from mcpbridge.testing import make_agent

USER = {"messages": [("user", "go")]}
FORECAST = {"city": "Oslo", "temperature_c": 4.5, "conditions": "light snow", "wind_kph": 12.0}
"""What `get_forecast` answers for Oslo."""


def build_server() -> MCPServer:
    """`get_forecast` (reports progress 0..3 of 4), `add`, `divide`, `fetch_page`, `slow`."""
    server = build_demo_server(delay=0)

    async def slow(seconds: float) -> str:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return "done"

    server.add_tool(slow)
    return server


def hold(tool: str, gate: asyncio.Event) -> ToolCallInterceptor:
    """An interceptor that keeps `tool`'s answer (its progress already sent) until `gate` opens."""

    async def interceptor(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        result = await handler(request)
        if request.name == tool:
            await gate.wait()
        return result

    return interceptor


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
    return make_agent(turns, tools)


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
