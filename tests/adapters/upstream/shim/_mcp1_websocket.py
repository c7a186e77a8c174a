"""`mcp.server.websocket` for the upstream suite: mcp 2.x has no WebSocket transport."""

from __future__ import annotations

from typing import Any


def websocket_server(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("mcp 2.x has no WebSocket transport (mcp.server.websocket is gone)")
