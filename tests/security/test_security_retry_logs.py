"""A retried error result is quoted by its first line, cut: the retry plugin logged (and sent
in its `retry` event) the server's error text whole at every attempt, so a server answering
with a 48 MB error held the event loop ~1 s longer and wrote two 48 MB log lines."""

from __future__ import annotations

import logging
from typing import Any

import mcpbridge_retry
import pytest
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from mcpbridge_retry import EVENT

from mcpbridge import MCPBridge, Settings, ToolCallHandler, ToolCallRequest

ERROR = "unavailable " + "x" * 1_000_000
RETRY = {"error_patterns": ["unavailable"], "initial": 0.01, "max": 0.01, "attempts": 3}


def build() -> MCPServer:
    server = MCPServer("flaky")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def flaky() -> str:
        """Fails with a huge error text every time."""
        raise ToolError(ERROR)

    return server


async def test_a_huge_error_is_quoted_cut(caplog: pytest.LogCaptureFixture) -> None:
    events: list[dict[str, Any]] = []

    async def listen(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        heard = (*request.observers, lambda event, data: events.append(dict(data)) if event == EVENT else None)
        return await handler(request.override(observers=heard))

    caplog.set_level(logging.INFO, logger="mcpbridge_retry")
    settings = Settings(plugins={"order": ["interceptors", "retry"], "retry": RETRY})
    async with MCPBridge(
        {"f": {"server": build()}}, settings=settings, plugins=[mcpbridge_retry], interceptors=[listen]
    ) as bridge:
        [tool] = await bridge.list_tools()
        message = await tool.ainvoke({"type": "tool_call", "name": "flaky", "args": {}, "id": "c1"})
    assert message.status == "error"
    logged = [record.getMessage() for record in caplog.records if record.name == "mcpbridge_retry"]
    assert len(logged) == 2
    assert len(events) == 2
    for text in [*logged, *(event["error"] for event in events)]:
        assert len(text) < 1000, f"a retry quotes {len(text):,} characters of the server's error"
        assert "unavailable xxx" in text
        assert "x…" in text
