"""Per-server size limits: an oversized argument is refused before it is sent, an oversized
result becomes an error message at once; the shared session stays usable."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from mcpbridge import MCPBridge
from tests.helpers import stdio_config

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


def text(message: Any) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


async def test_an_argument_over_the_limit_is_refused_before_sending(any_server: dict[str, Any]) -> None:
    server = {**any_server, "max_argument_bytes": 1000}
    async with MCPBridge({"basic": server}, plugins=[]) as bridge:
        message = await bridge.call_tool("basic", "echo", {"text": "y" * 5000})
        assert message.status == "error"
        assert "max_argument_bytes=1000" in text(message)
        assert text(await bridge.call_tool("basic", "echo", {"text": "small"})) == "small"


@pytest.mark.parametrize("transport", ["stdio", "http"])  # in-process results cross no wire
async def test_a_result_over_the_limit_is_an_error_message_and_the_session_lives_on(
    transport: str, http_url: str
) -> None:
    wire = stdio_config() if transport == "stdio" else {"url": http_url}
    server = {**wire, "max_result_bytes": 100_000}
    async with MCPBridge({"basic": server}, plugins=[], timeout=30) as bridge:
        started = time.monotonic()
        big, bystander = await asyncio.gather(
            bridge.call_tool("basic", "big", {"size": 1_000_000}),
            bridge.call_tool("basic", "echo", {"text": "bystander"}),
        )
        assert time.monotonic() - started < 10
        assert big.status == "error"
        assert "max_result_bytes=100000" in text(big), text(big)
        assert text(bystander) == "bystander"
        assert text(await bridge.call_tool("basic", "big", {"size": 1000})) == "x" * 1000


async def test_the_default_limits_let_ordinary_large_results_through(any_server: dict[str, Any]) -> None:
    async with MCPBridge({"basic": any_server}, plugins=[]) as bridge:
        message = await bridge.call_tool("basic", "big", {"size": 2_000_000})
        assert message.status == "success"
        assert len(text(message)) == 2_000_000
