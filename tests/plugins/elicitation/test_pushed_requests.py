"""Servers that push requests mid-call (`ctx.elicit`, sampling) and hear "no" (issue 28): the
error the user reads says what to do, whether the server passes the refusal on as a JSON-RPC
error or as a tool error, over stdio and streamable HTTP: on the legacy protocol, what answers
it (`on_elicitation`); on the modern protocol, which cannot carry it, `mode = "legacy"`."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterator
from typing import Any

import mcp.types as types
import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge
from mcpbridge.testing import serving
from tests.helpers import ROOT
from tests.servers import pushing

STDIO = {"command": sys.executable, "args": ["-m", "tests.servers.pushing"], "cwd": str(ROOT)}


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    if request.param == "stdio":
        yield STDIO
        return
    with serving(pushing.build().streamable_http_app()) as url:
        yield {"url": url}


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(str(block["text"]) for block in content)  # type: ignore[index]


@pytest.mark.parametrize("tool", ["ask", "ask_or_fail"])
async def test_legacy_without_on_elicitation_says_to_set_it(server: dict[str, Any], tool: str) -> None:
    async with MCPBridge({"s": {**server, "mode": "legacy"}}, plugins=["elicitation"]) as bridge:
        message = await bridge.call_tool("s", tool)
    assert message.status == "error"
    assert "Elicitation not supported" in text(message)
    assert text(message).count("set `on_elicitation` in [plugins.elicitation]") == 1


async def test_legacy_with_on_elicitation_answers(server: dict[str, Any]) -> None:
    def decline(server_name: str, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    settings = {"elicitation": {"on_elicitation": decline}}
    servers = {"s": {**server, "mode": "legacy"}}
    async with MCPBridge(servers, plugins=["elicitation"], plugin_settings=settings) as bridge:
        assert text(await bridge.call_tool("s", "ask")) == "the user chose decline"


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_a_legacy_server_has_at_most_max_rounds_questions_answered_per_call(transport: str) -> None:
    """Legacy questions name no call, so nothing counted them: a server could ask without end
    during one call, or when no call of it ran. Each one now counts against `max_rounds` of a
    call in flight on its server; two calls at once have theirs each."""
    asked: list[str] = []

    def accept(server_name: str, params: Any) -> types.ElicitResult:
        asked.append(server_name)
        return types.ElicitResult(action="accept", content={"sure": True})

    with contextlib.ExitStack() as stack:
        if transport == "inprocess":
            server: dict[str, Any] = {"server": pushing.build()}
        elif transport == "stdio":
            server = STDIO
        else:
            server = {"url": stack.enter_context(serving(pushing.build().streamable_http_app()))}
        settings = {"elicitation": {"on_elicitation": accept, "max_rounds": 2}}
        servers = {"s": {**server, "mode": "legacy"}}
        async with MCPBridge(servers, plugins=["elicitation"], plugin_settings=settings) as bridge:
            over = await bridge.call_tool("s", "ask_times", {"times": 5})
            assert len(asked) == 2
            both = await asyncio.gather(*(bridge.call_tool("s", "ask_times", {"times": 2}) for _ in range(2)))
            outside = await (await bridge.session("s")).call_tool(
                "ask_times", {"times": 1}
            )  # not a tool call of the bridge
    assert text(over).startswith("answered 2; then refused: mcpbridge: server 's' asked for user input outside")
    assert "more than `max_rounds` times in one call; refused (raise `max_rounds` in [plugins.elicitation]" in text(
        over
    )
    assert [text(message) for message in both] == ["answered 2", "answered 2"]
    assert outside.content[0].text.startswith("answered 0; then refused: mcpbridge: server 's' asked for user input")
    assert len(asked) == 6


@pytest.mark.parametrize(
    ("tool", "asked"), [("ask", "elicitation"), ("ask_or_fail", "elicitation"), ("sample", "sampling")]
)
async def test_the_modern_protocol_says_to_use_the_legacy_one(server: dict[str, Any], tool: str, asked: str) -> None:
    async with MCPBridge({"s": server}, plugins=["elicitation"]) as bridge:  # auto: the server is modern
        message = await bridge.call_tool("s", tool)
    assert message.status == "error"
    assert f"the server asks for {asked} mid-call, which the modern protocol (2026-07-28) has no channel for" in text(
        message
    )
    assert "set `mode = \"legacy\"` for server 's'" in text(message)
