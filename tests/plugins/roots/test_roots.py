"""The roots plugin: roots configured per server in [plugins.roots], answered on `roots/list`
(legacy) and within a call (modern), changed at runtime with `set_roots`, which tells a legacy
server at once; a declared layer that shows in the chain, `mcpbridge plugins` and the trace."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcpbridge_elicitation
import mcpbridge_roots
import pytest
from langgraph.types import Command
from mcpbridge_cli import main as cli
from mcpbridge_elicitation import create_elicitation_resume
from mcpbridge_roots import roots_of, set_roots

from mcpbridge import ConfigError, MCPBridge, Plugin, PluginError, hookimpl
from mcpbridge.testing import make_agent, serving, tool_call_turn
from tests.helpers import stdio_config
from tests.helpers.waiting import until, until_sync
from tests.servers import roots_server

pytestmark = pytest.mark.filterwarnings("ignore:The roots capability is deprecated")

ROOTS = ["file:///srv/project", {"uri": "file:///home/ann/notes", "name": "notes"}]
SHOWN = "file:///srv/project= file:///home/ann/notes=notes"


def bridge_with(server: dict[str, Any], roots: Any = ROOTS, *plugins: object) -> MCPBridge:
    """A bridge of server `r`, given `roots` in [plugins.roots] (none when None)."""
    settings = {"roots": {"servers": {"r": roots}}} if roots is not None else {}
    return MCPBridge({"r": server}, plugins=[mcpbridge_roots, *plugins], plugin_settings=settings)


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
    """Until the server says it saw `expected` (it reads the roots again when notified)."""

    async def seen() -> bool:
        return await text(bridge, "seen_roots") == expected

    await until(seen, f"the server seeing {expected!r}")


async def test_a_legacy_server_lists_the_roots_and_hears_when_they_change(transport: dict[str, Any]) -> None:
    async with bridge_with({**transport, "mode": "legacy"}) as bridge:
        assert await text(bridge, "legacy_roots") == SHOWN
        assert await text(bridge, "seen_roots") == "0 (not read)"
        await set_roots(bridge, "r", [{"uri": "file:///srv/other", "name": "other"}])
        # The server got notifications/roots/list_changed and read the roots again.
        await eventually(bridge, "1 file:///srv/other=other")
        assert await text(bridge, "legacy_roots") == "file:///srv/other=other"
        assert [str(root.uri) for root in roots_of(bridge, "r")] == ["file:///srv/other"]


def test_a_sync_bridge_tells_its_legacy_server_from_another_loop() -> None:
    """A sync bridge's sessions live on its own loop thread: the notification goes there."""
    with bridge_with({**stdio_config("tests.servers.roots_server"), "mode": "legacy"}) as bridge:
        tools = {tool.name: tool for tool in bridge.list_tools_sync()}

        def said(tool: str) -> str:
            return str(tools[tool].invoke({})[0]["text"])

        assert said("legacy_roots") == SHOWN
        asyncio.run(set_roots(bridge, "r", ["file:///srv/other"]))
        until_sync(lambda: said("seen_roots") == "1 file:///srv/other=", "the server seeing the new roots")


@pytest.mark.parametrize("where", ["inprocess", "http"])
async def test_a_modern_server_asking_within_a_call_gets_the_roots(where: str, roots_url: str) -> None:
    server = {"server": roots_server.build()} if where == "inprocess" else {"url": roots_url}
    async with bridge_with({**server, "mode": "modern"}) as bridge:
        assert await text(bridge, "asked_roots") == SHOWN
        await set_roots(bridge, "r", ["file:///srv/other"])
        assert await text(bridge, "asked_roots") == "file:///srv/other="
        # The modern protocol has no list_changed notification: none was sent.
        assert (await text(bridge, "seen_roots")).startswith("0 ")


async def test_a_round_asking_for_roots_and_a_person_pauses_for_the_person_only() -> None:
    async with bridge_with({"server": roots_server.build(), "mode": "modern"}, ROOTS, mcpbridge_elicitation) as bridge:
        agent = make_agent([tool_call_turn(("confirm_in_roots", {}))], await bridge.list_tools())
        thread = {"configurable": {"thread_id": "roots-and-person"}}
        paused = await agent.ainvoke({"messages": [("user", "go")]}, thread)
        [interrupt] = paused["__interrupt__"]
        assert list(interrupt.value["requests"]) == ["confirm"]  # the roots were answered below
        answer = {"confirm": {"action": "accept", "content": {"sure": True}}}
        resumed = await agent.ainvoke(Command(resume=create_elicitation_resume(interrupt, answer)), thread)
    assert resumed["messages"][-2].content[0]["text"] == f"{SHOWN} sure=True"


async def test_roots_set_before_connecting_are_the_first_ones_listed() -> None:
    async with bridge_with({"server": roots_server.build(), "mode": "legacy"}, []) as bridge:
        await set_roots(bridge, "r", ["file:///first"])
        assert await text(bridge, "legacy_roots") == "file:///first="
        assert await text(bridge, "seen_roots") == "0 (not read)"


async def test_without_roots_the_server_is_told_the_client_has_none() -> None:
    async with bridge_with({"server": roots_server.build(), "mode": "legacy"}, None) as bridge:
        message = await bridge.call_tool("r", "legacy_roots")
        assert message.status == "error"
        assert roots_of(bridge, "r") == []
        with pytest.raises(ConfigError, match=r"server 'r' was not given roots.*`servers = \{r = \[\]\}`"):
            await set_roots(bridge, "r", ["file:///x"])
        modern = await bridge.call_tool("r", "asked_roots")
        assert modern.status == "error"


@pytest.mark.parametrize(
    ("root", "problem"),
    [
        ("https://example.com/x", "is not a file:// URI with an absolute path"),
        ("file://relative", "is not a file:// URI with an absolute path"),
        ("/srv/project", "is not a file:// URI"),
        ("file:///srv?x=1", "has a query or fragment"),
        ({"uri": "file:///srv", "colour": "red"}, r"`plugins.roots.servers.r.0.colour`: unknown key"),
    ],
)
def test_a_root_that_is_not_a_file_uri_is_refused(root: Any, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        bridge_with({"url": "http://127.0.0.1:9/mcp"}, [root])


def test_roots_of_a_server_that_is_not_configured_are_refused() -> None:
    settings = {"roots": {"servers": {"nope": []}}}
    with pytest.raises(ConfigError, match=r"`plugins.roots.servers.nope.\[key\]`: server 'nope' is not configured"):
        MCPBridge({"r": {"url": "http://127.0.0.1:9/mcp"}}, plugins=[mcpbridge_roots], plugin_settings=settings)


async def test_set_roots_refuses_a_bad_root_and_keeps_the_old_ones() -> None:
    async with bridge_with({"server": roots_server.build(), "mode": "legacy"}) as bridge:
        with pytest.raises(ConfigError, match="set_roots for server 'r': root 'http://x' is not a file:// URI"):
            await set_roots(bridge, "r", ["file:///ok", "http://x"])
        assert await text(bridge, "legacy_roots") == SHOWN
        with pytest.raises(ConfigError, match="unknown server 'nope'"):
            await set_roots(bridge, "nope", [])


def test_set_roots_on_a_bridge_without_the_plugin_says_how_to_load_it() -> None:
    bridge = MCPBridge({"r": {"url": "http://127.0.0.1:9/mcp"}}, plugins=[])
    with pytest.raises(PluginError, match=r"this bridge has no roots plugin: load it with MCPBridge\(\.\.\., plugins="):
        roots_of(bridge, "r")


class RootsPlugin:
    mcpbridge_name = "rootsplugin"
    mcpbridge_plugin = Plugin()

    @hookimpl
    def mcpbridge_client_options(self) -> dict[str, Any]:
        async def list_roots(context: Any) -> Any:
            raise AssertionError("never asked")

        return {"list_roots_callback": list_roots}


def test_two_plugins_answering_roots_are_refused_together() -> None:
    with pytest.raises(PluginError, match="both set the mcp Client option 'list_roots_callback' for server 'r'"):
        bridge_with({"server": roots_server.build()}, ROOTS, RootsPlugin())


async def test_roots_is_a_layer_in_the_chain_and_the_trace(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPBRIDGE_TRACE_HOOKS", "1")
    async with bridge_with({"server": roots_server.build(), "mode": "modern"}) as bridge:
        assert "roots" in bridge.chain
        assert await text(bridge, "asked_roots") == SHOWN
    trace = capsys.readouterr().err
    assert "roots.mcpbridge_interceptors" in trace  # the hook
    assert "-> RootsInterceptor (r/asked_roots)" in trace  # the layer, on the call


def test_mcpbridge_plugins_shows_what_roots_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCPBRIDGE_PLUGINS", "roots")
    (tmp_path / "mcpbridge.toml").write_text(
        '[servers.fs]\nurl = "http://127.0.0.1:9/mcp"\n[plugins.roots]\nservers = { fs = ["file:///srv"] }\n'
    )
    assert cli(["plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [roots] = [plugin for plugin in data["plugins"] if plugin["name"] == "roots"]
    assert (roots["distribution"], roots["state"], roots["answers"]) == ("mcpbridge-roots", "enabled", ["roots"])
    assert "roots" in data["chain"]
    assert cli(["plugins"]) == 0
    assert "tells roots to fs (1)" in capsys.readouterr().out
