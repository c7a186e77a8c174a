"""Servers that change their tools mid-session: a late tool named like another server's is
left out (not every server's tools), contradictory annotations read as the unsafe side, a
changed definition is logged and announced, `pin_tools` holds it back until accepted, and
approval never relaxes because a server re-labelled a tool."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import mcpbridge_approval
import mcpbridge_cache
import mcpbridge_retry
import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from mcp.types import Tool, ToolAnnotations
from mcpbridge_approval import Settings as ApprovalSettings
from mcpbridge_approval import needs_approval
from mcpbridge_cache import CacheSettings
from mcpbridge_cache import Policy as CachePolicy

from mcpbridge import ConfigError, MCPBridge, MCPTool, ToolCallRequest, hookimpl, tool_hints
from mcpbridge._base.config import build_settings
from mcpbridge._facade.cli import main as cli
from mcpbridge._facade.definitions import shown
from mcpbridge._platform.hints import annotated_as, most_cautious
from mcpbridge.testing import ScriptedChatModel, serving, tool_call_turn
from tests.helpers import stdio_config
from tests.security import relabel_servers
from tests.servers import basic

MODULE = "tests.security.relabel_servers"


class Recorder:
    """A plugin that records the bridge's own events (`mcpbridge_bridge_observer`)."""

    mcpbridge_name = "recorder"

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    @hookimpl
    def mcpbridge_bridge_observer(self) -> Any:
        return lambda event, data: self.events.append((event, dict(data)))


@contextlib.contextmanager
def shifting(transport: str, *, pulled: bool = False) -> Any:
    """The shifting server's config over `transport`."""
    if transport == "stdio":
        yield stdio_config(MODULE, args=["-m", MODULE, *(["--pulled"] if pulled else [])])
    elif transport == "http":
        with serving(relabel_servers.build(pulled=pulled)) as url:
            yield {"url": url}
    else:
        yield {"server": relabel_servers.build(pulled=pulled)}


async def tools_of(bridge: MCPBridge, **options: Any) -> dict[str, MCPTool]:
    return {tool.name: tool for tool in await bridge.list_tools(**options)}


async def shift(bridge: MCPBridge, server: str, kind: str) -> None:
    """Make `server` change its tools and wait until it has announced it."""
    tools = {t.binding.tool.name: t for t in await bridge.list_tools(servers=[server])}
    message = await tools["shift"].ainvoke(call("shift", {"kind": kind}))
    assert message.status == "success", message.content
    for _ in range(500):
        if bridge._connections[server].tools_stale:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"server {server!r} never announced its tool change")


def call(name: str, args: Mapping[str, Any], id: str = "c1") -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": dict(args), "id": id}


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(block["text"] for block in content)  # type: ignore[index]


def logged(caplog: pytest.LogCaptureFixture, *needles: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and all(n in r.getMessage() for n in needles)
    ]


# -- 6: a name collision after tools/list_changed ----------------------------------------


@pytest.mark.parametrize(
    ("transport", "on_server_error"), [("inprocess", "raise"), ("stdio", "skip"), ("http", "skip")]
)
async def test_a_late_tool_named_like_another_servers_is_left_out_alone(
    transport: str, on_server_error: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    with shifting(transport) as late:
        # The late server is listed first, so the listing order cannot decide who keeps the name.
        servers = {"late": late, "first": {"server": basic.build()}}
        async with MCPBridge(servers, plugins=[], on_server_error=on_server_error) as bridge:  # type: ignore[arg-type]
            before = await tools_of(bridge)
            assert before["echo"].binding.server_name == "first"
            await shift(bridge, "late", "collide")
            after = await tools_of(bridge)
            assert after["echo"].binding.server_name == "first"
            assert text(await after["echo"].ainvoke(call("echo", {"text": "hi"}))) == "hi"  # the bystander
            assert text(await after["lookup"].ainvoke(call("lookup", {"key": "k"}))) == "looked up k"
            assert set(after) == set(before)  # every other tool of both servers stays
            [warning] = logged(caplog, "'echo'", "'late'", "'first'")
            assert "tool_name_prefix" in warning
            await tools_of(bridge)
            assert len(logged(caplog, "'echo'", "'late'")) == 1  # once, not on every listing


# -- 14: contradictory annotations ------------------------------------------------------


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
async def test_contradictory_annotations_are_a_write_for_the_cache(
    transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    rules = {"cache": {"rules": [{"server": "s", "tool": "both"}]}}
    with shifting(transport) as config:
        async with MCPBridge({"s": config}, plugins=[mcpbridge_cache], plugin_settings=rules) as bridge:
            both = (await tools_of(bridge))["both"]
            first = await both.ainvoke(call("both", {"key": "k"}))
            second = await both.ainvoke(call("both", {"key": "k"}))
            assert (text(first), text(second)) == ("both call 1", "both call 2")  # never served from the cache
            await tools_of(bridge)
            assert len(logged(caplog, "'s'", "'both'", "readOnlyHint", "destructiveHint")) == 1
            await tools_of(bridge, refresh=True)  # a new listing: warned again, once
            assert len(logged(caplog, "'s'", "'both'", "readOnlyHint", "destructiveHint")) == 2


async def test_contradictory_annotations_need_approval_and_are_not_retried() -> None:
    async with MCPBridge({"s": relabel_servers.build()}, plugins=[mcpbridge_approval]) as bridge:
        both = (await tools_of(bridge))["both"]
        hints = tool_hints(both.binding.tool)
        assert (hints.read_only, hints.destructive, hints.idempotent) == (False, True, False)
        refused = await both.ainvoke(call("both", {"key": "k"}))
        assert refused.status == "error"
        assert "not running inside a LangGraph graph" in text(refused)
    retry = {"retry": {"initial": 0.01, "max": 0.05}}
    server = {"server": relabel_servers.build(), "timeout": 0.3}
    async with MCPBridge({"s": server}, plugins=[mcpbridge_retry], plugin_settings=retry) as bridge:
        both = (await tools_of(bridge))["both"]
        timed_out = await both.ainvoke(call("both", {"key": "k", "hang_first": True}))
        assert timed_out.status == "error"
        assert "not retried" in text(timed_out)
        assert text(await both.ainvoke(call("both", {"key": "k"}))) == "both call 2"  # it ran once before


# -- 15: rug pulls ----------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_a_changed_definition_is_logged_and_announced(transport: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    recorder = Recorder()
    with shifting(transport) as config:
        async with MCPBridge({"s": config}, plugins=[recorder], tool_name_prefix=True) as bridge:
            await tools_of(bridge)
            assert recorder.events == []
            await shift(bridge, "s", "rug_pull")
            tools = await tools_of(bridge)
            assert "s_lookup" in tools  # not pinned: still offered, with its new description
            assert tools["s_lookup"].description == relabel_servers.PULLED
    [warning] = logged(caplog, "server 's'", "'lookup'")
    assert "annotations" in warning
    assert "description" in warning
    assert "\n" not in warning
    assert "s_lookup" not in warning  # the server's own name, never the prefixed one
    assert recorder.events == [
        (
            "tool.changed",
            {"server_name": "s", "name": "lookup", "changed": ["annotations", "description"], "left_out": False},
        )
    ]


@given(st.text())
def test_server_text_in_a_log_line_is_one_short_escaped_line(raw: str) -> None:
    quoted = shown(raw)
    assert quoted.isprintable()
    assert len(quoted) <= 90


HINT = st.sampled_from([None, True, False])
ANNOTATIONS = st.builds(
    ToolAnnotations, read_only_hint=HINT, destructive_hint=HINT, idempotent_hint=HINT, open_world_hint=HINT
)


@given(st.lists(st.one_of(st.none(), ANNOTATIONS), min_size=2, max_size=4))
def test_a_relabelled_tool_is_gated_cached_and_retried_no_more_freely(labels: list[ToolAnnotations | None]) -> None:
    """Whatever a server re-labels a tool as, the reading the bridge keeps is at least as
    strict for approval (either setting), the cache and retry as every label it had."""
    tools = [Tool(name="t", input_schema={"type": "object"}, annotations=label) for label in labels]
    kept = tool_hints(tools[0])
    for tool in tools[1:]:
        kept = most_cautious(kept, tool_hints(tool))
    offered = annotated_as(tools[-1], kept)
    assert tool_hints(offered) == kept
    cache = CachePolicy(CacheSettings.model_validate({"rules": [{"server": "s", "tool": "t"}]}))

    def request(tool: Tool) -> ToolCallRequest:
        return ToolCallRequest(name="t", args={}, server_name="s", tool=tool)

    for tool in tools:
        for strict in (False, True):
            settings = ApprovalSettings(require_unannotated=strict)
            assert needs_approval(settings, request(offered)) >= needs_approval(settings, request(tool))
        assert cache.decide(request(offered)).ttl is None or cache.decide(request(tool)).ttl is not None
        assert not tool_hints(offered).idempotent or tool_hints(tool).idempotent


@pytest.mark.parametrize("transport", ["inprocess", "http"])
async def test_approval_never_relaxes_after_a_relabel(transport: str) -> None:
    with shifting(transport) as config:
        async with MCPBridge({"s": config}, plugins=[mcpbridge_approval]) as bridge:
            await tools_of(bridge)
            await shift(bridge, "s", "rug_pull")
            tools = await tools_of(bridge)
            assert tool_hints(tools["lookup"].binding.tool).destructive
            model = ScriptedChatModel(turns=[tool_call_turn(("lookup", {"key": "k"}))])
            agent = create_agent(model, list(tools.values()), checkpointer=InMemorySaver())
            result = await agent.ainvoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "t"}})
            [pending] = result["__interrupt__"]
            assert pending.value["name"] == "lookup"
            assert pending.value["annotations"]["destructiveHint"] is True


@contextlib.asynccontextmanager
async def pinned_bridge(config: dict[str, Any], pins: Path, **options: Any) -> AsyncIterator[MCPBridge]:
    settings = build_settings({"pins_file": str(pins), "servers": {"s": {**config, "pin_tools": True}}})
    async with MCPBridge(settings=settings, **options) as bridge:
        yield bridge


async def test_a_pinned_tool_is_left_out_until_accepted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    pins = tmp_path / "pins.json"
    recorder = Recorder()
    with shifting("http") as config:
        async with (
            pinned_bridge(config, pins, plugins=[recorder]) as running,
            pinned_bridge(config, pins, plugins=[]) as other,
        ):
            assert "lookup" in await tools_of(running)
            assert json.loads(pins.read_text())["servers"]["s"]["lookup"]["description"] == relabel_servers.HONEST
            await shift(running, "s", "rug_pull")
            tools = await tools_of(running)
            assert "lookup" not in tools
            assert text(await tools["both"].ainvoke(call("both", {"key": "k"}))) == "both call 1"  # the others stay
            [warning] = logged(caplog, "server 's'", "'lookup'", "left out")
            assert "mcpbridge tools --accept" in warning
            assert recorder.events[-1][1]["left_out"] is True
            await tools_of(running)
            assert len(logged(caplog, "left out")) == 1  # once per definition, not per listing

            # Another process (here: another bridge on the same pins file) accepts it...
            assert "lookup" not in await tools_of(other)
            assert await other.accept_tools() == ["s/lookup"]
            assert "lookup" in await tools_of(other)
            # ...and the running bridge offers it at its next listing, read as cautiously as before.
            lookup = (await tools_of(running))["lookup"]
            assert lookup.description == relabel_servers.PULLED
            assert tool_hints(lookup.binding.tool).destructive
    assert json.loads(pins.read_text())["servers"]["s"]["lookup"]["description"] == relabel_servers.PULLED


async def test_a_definition_changed_between_runs_is_held_back(tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    with shifting("inprocess") as config:
        async with pinned_bridge(config, pins, plugins=[]) as bridge:
            assert "lookup" in await tools_of(bridge)
    with shifting("inprocess", pulled=True) as config:
        async with pinned_bridge(config, pins, plugins=[]) as bridge:
            assert "lookup" not in await tools_of(bridge)
            with pytest.raises(ConfigError, match=r"tool 'lookup' of server 's' is held back: .*--accept s/lookup"):
                await bridge.call_tool("s", "lookup", {"key": "k"})
            [held] = bridge.held_tools
            assert (held.server_name, held.tool.description, held.changed) == (
                "s",
                relabel_servers.PULLED,
                ("annotations", "description"),
            )
            assert await bridge.accept_tools(["s/nope"]) == []
            assert await bridge.accept_tools(["s"]) == ["s/lookup"]
            assert "lookup" in await tools_of(bridge)


def test_mcpbridge_tools_accept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    config = project / "mcpbridge.toml"
    monkeypatch.chdir(tmp_path)  # pins live beside the config file, wherever the command runs

    def tools(url: str, *options: str) -> str:
        config.write_text(f'pin_tools = true\n[servers.s]\nurl = "{url}"\n[plugins]\nautoload = false\n')
        assert cli(["tools", "--config", str(config), *options]) == 0
        return capsys.readouterr().out

    with serving(relabel_servers.build()) as honest, serving(relabel_servers.build(pulled=True)) as pulled:
        assert "s/lookup  as 'lookup'" in tools(honest)
        assert (project / "mcpbridge.pins.json").is_file()
        out = tools(pulled)  # the server changed between runs
        assert "s/lookup  as" not in out
        assert (
            "s/lookup  held back: its annotations, description changed since pinned; review, then --accept s/lookup"
            in out
        )
        assert "evil.example" in out  # the new definition, for review
        out = tools(pulled, "--accept", "s/lookup")
        assert out.startswith("accepted s/lookup\n")
        assert "s/lookup  as 'lookup'" in out
        assert "held back" not in out
