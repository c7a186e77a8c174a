"""Servers that change their tools mid-session: a late tool named like another server's is
left out (not every server's tools), and contradictory annotations read as the unsafe side.
What a changed definition does (logged, announced, read as cautiously, pinned) is the pins
plugin's: tests/plugins/pins."""

from __future__ import annotations

import logging

import mcpbridge_approval
import mcpbridge_retry
import pytest

from mcpbridge import MCPBridge, tool_hints
from tests.helpers.relabel import call, logged, shift, shifting, text, tools_of
from tests.security import relabel_servers
from tests.servers import basic

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
