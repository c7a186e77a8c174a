"""Roots: configured per server, answered on `roots/list` (legacy) and within a call
(modern), changed at runtime with `set_roots`, which tells a legacy server at once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import mcpbridge_elicitation
import pytest
from langgraph.types import Command
from mcpbridge_elicitation import create_elicitation_resume

from mcpbridge import ConfigError, MCPBridge, Plugin, hookimpl
from mcpbridge.testing import make_agent, serving, tool_call_turn
from tests.helpers import stdio_config
from tests.servers import roots_server

pytestmark = pytest.mark.filterwarnings("ignore:The roots capability is deprecated")

ROOTS = ["file:///srv/project", {"uri": "file:///home/ann/notes", "name": "notes"}]
SHOWN = "file:///srv/project= file:///home/ann/notes=notes"


@pytest.fixture
def roots_url() -> Iterator[str]:
    with serving(roots_server.build()) as url:
        yield url


@pytest.fixture(params=["inprocess", "stdio", "http"])
def transport(request: pytest.FixtureRequest, roots_url: str) -> dict[str, Any]:
    if request.param == "inprocess":
        return {"server": roots_server.build()}
    if request.param == "stdio":
        return stdio_config("tests.servers.roots_server")
    return {"url": roots_url}


async def text(bridge: MCPBridge, tool: str) -> str:
    message = await bridge.call_tool("r", tool)
    assert message.status == "success", message.content
    return str(message.content[0]["text"])


async def eventually(bridge: MCPBridge, expected: str) -> None:
    for _ in range(200):
        if await text(bridge, "seen_roots") == expected:
            return
        await asyncio.sleep(0.02)
    assert await text(bridge, "seen_roots") == expected


async def test_a_legacy_server_lists_the_roots_and_hears_when_they_change(transport: dict[str, Any]) -> None:
    async with MCPBridge({"r": {**transport, "mode": "legacy", "roots": ROOTS}}) as bridge:
        assert await text(bridge, "legacy_roots") == SHOWN
        assert await text(bridge, "seen_roots") == "0 (not read)"
        await bridge.set_roots("r", [{"uri": "file:///srv/other", "name": "other"}])
        # The server got notifications/roots/list_changed and read the roots again.
        await eventually(bridge, "1 file:///srv/other=other")
        assert await text(bridge, "legacy_roots") == "file:///srv/other=other"
        assert [str(root.uri) for root in bridge.roots("r")] == ["file:///srv/other"]


@pytest.mark.parametrize("where", ["inprocess", "http"])
async def test_a_modern_server_asking_within_a_call_gets_the_roots(where: str, roots_url: str) -> None:
    server = {"server": roots_server.build()} if where == "inprocess" else {"url": roots_url}
    async with MCPBridge({"r": {**server, "mode": "modern", "roots": ROOTS}}) as bridge:
        assert await text(bridge, "asked_roots") == SHOWN
        await bridge.set_roots("r", ["file:///srv/other"])
        assert await text(bridge, "asked_roots") == "file:///srv/other="
        # The modern protocol has no list_changed notification: none was sent.
        assert (await text(bridge, "seen_roots")).startswith("0 ")


async def test_a_round_asking_for_roots_and_a_person_pauses_for_the_person_only() -> None:
    config = {"r": {"server": roots_server.build(), "mode": "modern", "roots": ROOTS}}
    async with MCPBridge(config, plugins=[mcpbridge_elicitation]) as bridge:
        agent = make_agent([tool_call_turn(("confirm_in_roots", {}))], await bridge.list_tools())
        thread = {"configurable": {"thread_id": "roots-and-person"}}
        paused = await agent.ainvoke({"messages": [("user", "go")]}, thread)
        [interrupt] = paused["__interrupt__"]
        assert list(interrupt.value["requests"]) == ["confirm"]  # the roots were answered below
        answer = {"confirm": {"action": "accept", "content": {"sure": True}}}
        resumed = await agent.ainvoke(Command(resume=create_elicitation_resume(interrupt, answer)), thread)
    assert resumed["messages"][-2].content[0]["text"] == f"{SHOWN} sure=True"


async def test_roots_set_before_connecting_are_the_first_ones_listed() -> None:
    async with MCPBridge({"r": {"server": roots_server.build(), "mode": "legacy", "roots": []}}) as bridge:
        await bridge.set_roots("r", ["file:///first"])
        assert await text(bridge, "legacy_roots") == "file:///first="
        assert await text(bridge, "seen_roots") == "0 (not read)"


async def test_without_roots_the_server_is_told_the_client_has_none() -> None:
    async with MCPBridge({"r": {"server": roots_server.build(), "mode": "legacy"}}) as bridge:
        message = await bridge.call_tool("r", "legacy_roots")
        assert message.status == "error"
        assert bridge.roots("r") == []
        with pytest.raises(ConfigError, match=r"server 'r' was not given `roots`.*configure `roots = \[\]`"):
            await bridge.set_roots("r", ["file:///x"])
        modern = await bridge.call_tool("r", "asked_roots")
        assert modern.status == "error"


@pytest.mark.parametrize(
    ("root", "problem"),
    [
        ("https://example.com/x", "is not a file:// URI with an absolute path"),
        ("file://relative", "is not a file:// URI with an absolute path"),
        ("/srv/project", "is not a file:// URI"),
        ("file:///srv?x=1", "has a query or fragment"),
        ({"uri": "file:///srv", "colour": "red"}, "servers.r.roots.0.colour: unknown key"),
    ],
)
def test_a_root_that_is_not_a_file_uri_is_refused(root: Any, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        MCPBridge({"r": {"url": "http://127.0.0.1:9/mcp", "roots": [root]}})


async def test_set_roots_refuses_a_bad_root_and_keeps_the_old_ones() -> None:
    async with MCPBridge({"r": {"server": roots_server.build(), "mode": "legacy", "roots": ROOTS}}) as bridge:
        with pytest.raises(ConfigError, match="set_roots for server 'r': root 'http://x' is not a file:// URI"):
            await bridge.set_roots("r", ["file:///ok", "http://x"])
        assert await text(bridge, "legacy_roots") == SHOWN
        with pytest.raises(ConfigError, match="unknown server 'nope'"):
            await bridge.set_roots("nope", [])


class RootsPlugin:
    mcpbridge_name = "rootsplugin"
    mcpbridge_plugin = Plugin()

    @hookimpl
    def mcpbridge_client_options(self) -> dict[str, Any]:
        async def list_roots(context: Any) -> Any:
            raise AssertionError("never asked")

        return {"list_roots_callback": list_roots}


def test_configured_roots_and_a_plugin_answering_roots_are_refused_together() -> None:
    with pytest.raises(ConfigError, match="server 'r' has `roots` configured and a plugin also answers its roots"):
        MCPBridge({"r": {"server": roots_server.build(), "roots": ROOTS}}, plugins=[RootsPlugin()])
