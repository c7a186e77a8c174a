"""The pins plugin: a changed definition is logged and announced, approval never relaxes
because a server re-labelled a tool, contradictory annotations are warned about once per
listing, and `pin_tools` holds a changed tool back until accepted (in Python, from another
process, and with `mcpbridge pins accept`)."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcpbridge_approval
import mcpbridge_cache
import mcpbridge_pins
import pytest
from hypothesis import given, strategies as st
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from mcp.types import Tool, ToolAnnotations
from mcpbridge_approval import ApprovalSettings, needs_approval
from mcpbridge_cache import CacheSettings, Policy as CachePolicy
from mcpbridge_cli import main as cli
from mcpbridge_pins.cautious import annotated_as, most_cautious
from mcpbridge_pins.review import shown

from mcpbridge import ConfigError, MCPBridge, PluginError, Settings, ToolCallRequest, hookimpl, tool_hints
from mcpbridge.testing import ScriptedChatModel, serving, tool_call_turn
from tests.helpers.relabel import call, logged, shift, shifting, text, tools_of
from tests.security import relabel_servers


class Recorder:
    """A plugin that records the bridge's own events (`mcpbridge_bridge_observer`)."""

    mcpbridge_name = "recorder"

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    @hookimpl
    def mcpbridge_bridge_observer(self) -> Any:
        return lambda event, data: self.events.append((event, dict(data)))


# -- 14: contradictory annotations ------------------------------------------------------


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
async def test_contradictory_annotations_are_a_write_for_the_cache(
    transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    rules = {"cache": {"rules": [{"server": "s", "tool": "both"}]}}
    with shifting(transport) as config:
        async with MCPBridge({"s": config}, plugins=[mcpbridge_cache, mcpbridge_pins], plugin_settings=rules) as bridge:
            both = (await tools_of(bridge))["both"]
            first = await both.ainvoke(call("both", {"key": "k"}))
            second = await both.ainvoke(call("both", {"key": "k"}))
            assert (text(first), text(second)) == ("both call 1", "both call 2")  # never served from the cache
            await tools_of(bridge)
            assert len(logged(caplog, "'s'", "'both'", "readOnlyHint", "destructiveHint")) == 1
            await tools_of(bridge, refresh=True)  # a new listing: warned again, once
            assert len(logged(caplog, "'s'", "'both'", "readOnlyHint", "destructiveHint")) == 2


# -- 15: rug pulls ----------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_a_changed_definition_is_logged_and_announced(transport: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    recorder = Recorder()
    with shifting(transport) as config:
        async with MCPBridge({"s": config}, plugins=[recorder, mcpbridge_pins], tool_name_prefix=True) as bridge:
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
        async with MCPBridge({"s": config}, plugins=[mcpbridge_approval, mcpbridge_pins]) as bridge:
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
async def pinned_bridge(
    config: dict[str, Any], pins: Path, plugins: list[Any] | None = None
) -> AsyncIterator[MCPBridge]:
    table = {"pin_tools": ["s"], "file": str(pins)}
    settings = Settings(servers={"s": config}, plugins={"pins": table})
    async with MCPBridge(settings=settings, plugins=[*(plugins or ()), mcpbridge_pins]) as bridge:
        yield bridge


async def test_a_pinned_tool_is_left_out_until_accepted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    pins = tmp_path / "pins.json"
    recorder = Recorder()
    with shifting("http") as config:
        async with (
            pinned_bridge(config, pins, plugins=[recorder]) as running,
            pinned_bridge(config, pins) as other,
        ):
            assert "lookup" in await tools_of(running)
            assert json.loads(pins.read_text())["servers"]["s"]["lookup"]["description"] == relabel_servers.HONEST
            await shift(running, "s", "rug_pull")
            tools = await tools_of(running)
            assert "lookup" not in tools
            assert text(await tools["both"].ainvoke(call("both", {"key": "k"}))) == "both call 1"  # the others stay
            [warning] = logged(caplog, "server 's'", "'lookup'", "left out")
            assert "`mcpbridge pins accept s/lookup`" in warning
            assert recorder.events[-1][1]["left_out"] is True
            await tools_of(running)
            assert len(logged(caplog, "left out")) == 1  # once per definition, not per listing

            # Another process (here: another bridge on the same pins file) accepts it...
            assert "lookup" not in await tools_of(other)
            assert await mcpbridge_pins.accept_tools(other) == ["s/lookup"]
            assert "lookup" in await tools_of(other)
            # ...and the running bridge offers it at its next listing, read as cautiously as before.
            lookup = (await tools_of(running))["lookup"]
            assert lookup.description == relabel_servers.PULLED
            assert tool_hints(lookup.binding.tool).destructive
    assert json.loads(pins.read_text())["servers"]["s"]["lookup"]["description"] == relabel_servers.PULLED


async def test_a_definition_changed_between_runs_is_held_back(tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    with shifting("inprocess") as config:
        async with pinned_bridge(config, pins) as bridge:
            assert "lookup" in await tools_of(bridge)
    with shifting("inprocess", pulled=True) as config:
        async with pinned_bridge(config, pins) as bridge:
            assert "lookup" not in await tools_of(bridge)
            with pytest.raises(ConfigError, match=r"tool 'lookup' of server 's' is held back: .*pins accept s/lookup"):
                await bridge.call_tool("s", "lookup", {"key": "k"})
            [held] = mcpbridge_pins.held_tools(bridge)
            assert (held.server_name, held.tool.description, held.changed) == (
                "s",
                relabel_servers.PULLED,
                ("annotations", "description"),
            )
            assert await mcpbridge_pins.accept_tools(bridge, ["s/nope"]) == []
            assert await mcpbridge_pins.accept_tools(bridge, ["s"]) == ["s/lookup"]
            assert "lookup" in await tools_of(bridge)


def test_mcpbridge_pins_accept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    config = project / "mcpbridge.toml"
    monkeypatch.chdir(tmp_path)  # pins live beside the config file, wherever the command runs

    def run(url: str, *command: str) -> str:
        config.write_text(
            f'[servers.s]\nurl = "{url}"\n[plugins]\nautoload = false\n[plugins.pins]\npin_tools = true\n'
        )
        assert cli([*command, "--config", str(config)]) == 0
        return capsys.readouterr().out

    with serving(relabel_servers.build()) as honest, serving(relabel_servers.build(pulled=True)) as pulled:
        assert run(honest, "pins") == "no tool is held back\n"
        assert (project / "mcpbridge.pins.json").is_file()
        assert "s/lookup  as 'lookup'" in run(pulled, "tools")  # the core alone pins nothing
        out = run(pulled, "pins")  # the server changed between runs
        assert (
            "s/lookup  held back: its annotations, description changed since pinned; "
            "review, then `mcpbridge pins accept s/lookup`" in out
        )
        assert "evil.example" in out  # the new definition, for review
        out = run(pulled, "pins", "accept", "s/lookup")
        assert out == "accepted s/lookup\nno tool is held back\n"


async def test_without_the_plugin_nothing_is_pinned_and_its_functions_say_so(tmp_path: Path) -> None:
    with shifting("inprocess") as config:
        async with MCPBridge({"s": config}, plugins=[]) as bridge:
            await shift(bridge, "s", "rug_pull")
            tools = await tools_of(bridge)
            assert tools["lookup"].description == relabel_servers.PULLED  # offered as listed
            with pytest.raises(PluginError, match="no pins plugin"):
                mcpbridge_pins.held_tools(bridge)


def test_an_unknown_server_to_pin_is_refused() -> None:
    settings = Settings(servers={"s": {"url": "http://x/mcp"}}, plugins={"pins": {"pin_tools": ["t"]}})
    with pytest.raises(ConfigError, match=r"plugins.pins.pin_tools.*server 't' is not configured"):
        MCPBridge(settings=settings, plugins=[mcpbridge_pins])


async def test_a_failing_observer_keeps_the_event_from_no_other(caplog: pytest.LogCaptureFixture) -> None:
    class Failing:
        mcpbridge_name = "failing"

        @hookimpl
        def mcpbridge_bridge_observer(self) -> Any:
            def fail(event: str, data: Any) -> None:
                raise RuntimeError("observer bug")

            return fail

    recorder = Recorder()
    with shifting("inprocess") as config:
        async with MCPBridge({"s": config}, plugins=[Failing(), recorder, mcpbridge_pins]) as bridge:
            await tools_of(bridge)
            await shift(bridge, "s", "rug_pull")
            await tools_of(bridge)
    assert [event for event, _ in recorder.events] == ["tool.changed"]
    assert any("observer failed on tool.changed" in r.getMessage() for r in caplog.records)
