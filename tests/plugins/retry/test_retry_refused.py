"""Refused credentials are not retried: the same token is refused again, so the call fails
at once with the server's refusal (`AuthenticationError`), whatever the policy says."""

from __future__ import annotations

from typing import Any

import mcpbridge_retry
import pytest

from mcpbridge import AuthenticationError, MCPBridge
from mcpbridge.testing import serve_http
from tests.servers import bearer


class Counting:
    """Counts the `tools/call` requests that reach the gate."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.calls = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            first = await receive()
            self.calls += b'"tools/call"' in first.get("body", b"")
            pending = [first]

            async def replay() -> Any:
                return pending.pop() if pending else await receive()

            return await self.app(scope, replay, send)
        return await self.app(scope, receive, send)


async def test_a_token_refused_mid_session_is_not_retried() -> None:
    gate = bearer.BearerGate(bearer.build().streamable_http_app())
    counting = Counting(gate)
    served = serve_http(counting)
    headers = {"headers": {"Authorization": f"Bearer {bearer.TOKEN}"}}
    try:
        bridge = MCPBridge(
            {"s": {"url": served.url, **headers}},
            plugins=[mcpbridge_retry],
            plugin_settings={"retry": {"attempts": 5, "initial": 0.01, "max": 0.02}},
        )
        async with bridge:
            assert (await bridge.call_tool("s", "echo", {"text": "hi"})).status == "success"
            gate.accept = "rotated"
            with pytest.raises(AuthenticationError, match="HTTP 401"):
                await bridge.call_tool("s", "echo", {"text": "again"})
    finally:
        served.stop()
    assert counting.calls == 2  # the first call, then one attempt of the refused one
