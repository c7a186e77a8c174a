"""A result too large for the cache is left alone without being encoded: the cache encoded
every result as ASCII JSON before comparing it with `max_entry_bytes`, so a cacheable tool
answering with 16 M non-ASCII characters (96 MB once escaped) held the event loop ~0.8 s at
every call, for every other caller of the process (without the cache: ~0.15 s)."""

from __future__ import annotations

from typing import Any

import mcpbridge_cache
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from mcpbridge import MCPBridge
from tests.security.test_security_schemas import LoopWatch

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

CALLS: list[str] = []


def build() -> MCPServer:
    server = MCPServer("big")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def big(size: int) -> str:
        """`size` non-ASCII characters."""
        CALLS.append("big")
        return "é" * size

    return server


def call(size: int) -> dict[str, Any]:
    return {"type": "tool_call", "name": "big", "args": {"size": size}, "id": "call-big"}


async def test_a_result_over_max_entry_bytes_is_never_encoded() -> None:
    settings = {"cache": {"rules": [{"server": "b", "cache": True}]}}
    async with MCPBridge({"b": {"server": build()}}, plugins=[mcpbridge_cache], plugin_settings=settings) as bridge:
        [tool] = await bridge.list_tools()
        async with LoopWatch() as watch:
            message = await tool.ainvoke(call(16_000_000))
        assert watch.worst < 0.5, f"the event loop was held {watch.worst:.2f} s by a result too large to cache"
        assert message.status == "success"
        await tool.ainvoke(call(16_000_000))
        assert CALLS == ["big", "big"]  # over max_entry_bytes: never cached
        await tool.ainvoke(call(10))
        await tool.ainvoke(call(10))
        assert CALLS == ["big", "big", "big"]  # a small result still is
