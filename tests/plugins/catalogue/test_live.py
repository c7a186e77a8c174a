"""A running agent sees the tools its servers add, change and remove, at its next model call,
without being rebuilt, on every transport (the change arrives on a `subscriptions/listen`
stream on 2026-07-28, as a `tools/list_changed` notification before)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcpbridge_catalogue
import mcpbridge_pins
import pytest
from langchain_core.messages import AIMessage

from mcpbridge import MCPBridge, Settings
from mcpbridge.testing import SessionProbe, serve_http, serving, tool_call_turn
from tests.helpers import stdio_config
from tests.plugins.catalogue import changing
from tests.plugins.catalogue.catalogue_support import CONFIG, Recorder, live_agent, text, tool_messages

TRANSPORTS = ["inprocess", "inprocess-legacy", "http", "http-legacy", "stdio", "stdio-legacy"]


@contextlib.contextmanager
def server_config(transport: str) -> Iterator[dict[str, Any]]:
    mode = "legacy" if transport.endswith("-legacy") else "modern"
    if transport.startswith("http"):
        with serving(changing.build()) as url:
            yield {"url": url, "mode": mode}
    elif transport.startswith("stdio"):
        yield stdio_config("tests.plugins.catalogue.changing", mode=mode)
    else:
        yield {"server": changing.build(), "mode": mode}


async def run(bridge: MCPBridge, announcing: str, *turns: Any) -> tuple[Recorder, dict[str, Any]]:
    """The agent's run: `turns` play the model; after the tool `announcing` ran, the next model
    call waits for the server's announcement to reach the bridge."""
    probe = SessionProbe(bridge, "s")
    recorder = Recorder({announcing: lambda: probe.tools_changed})
    result = await live_agent(bridge, [*turns, AIMessage("Done.")], recorder).ainvoke(
        {"messages": [("user", "go")]}, CONFIG
    )
    return recorder, result


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_tool_added_mid_run_is_given_at_the_next_model_call_and_runs(transport: str) -> None:
    with server_config(transport) as config:
        async with MCPBridge({"s": config}, plugins=[mcpbridge_catalogue]) as bridge:
            recorder, result = await run(bridge, "add", tool_call_turn(("add", {})), tool_call_turn(("grown", {})))
    assert recorder.names(0) == ["add", "change", "echo", "remove"]
    assert recorder.names(1) == ["add", "change", "echo", "grown", "remove"]
    grown = tool_messages(result)["grown"]
    assert (grown.status, text(grown)) == ("success", "grown ran")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_removed_tool_is_no_longer_given_and_a_call_to_it_is_refused(transport: str) -> None:
    with server_config(transport) as config:
        async with MCPBridge({"s": config}, plugins=[mcpbridge_catalogue]) as bridge:
            recorder, result = await run(
                bridge, "remove", tool_call_turn(("remove", {})), tool_call_turn(("echo", {"text": "hi"}))
            )
    assert "echo" in recorder.names(0)
    assert "echo" not in recorder.names(1)
    echo = tool_messages(result)["echo"]
    assert echo.status == "error"
    assert "is no longer offered" in text(echo)
    assert "the server no longer lists it" in text(echo)


@pytest.mark.parametrize("provider", [None, "openai"])
async def test_a_changed_tool_is_given_anew_and_the_others_stay_the_same(provider: str | None) -> None:
    async with MCPBridge({"s": {"server": changing.build()}}, plugins=[mcpbridge_catalogue]) as bridge:
        probe = SessionProbe(bridge, "s")
        recorder = Recorder({"change": lambda: probe.tools_changed})
        agent = live_agent(bridge, [tool_call_turn(("change", {}))], recorder, provider=provider)
        await agent.ainvoke({"messages": [("user", "go")]}, CONFIG)
    before, after = recorder.by_name(0), recorder.by_name(1)
    echo = after["echo"]
    description = echo["function"]["description"] if isinstance(echo, dict) else echo.description
    assert description == "Repeat the text, now louder."
    assert echo is not before["echo"]
    assert all(after[name] is before[name] for name in ("add", "change", "remove"))


async def test_a_change_held_by_the_pins_plugin_is_not_given_until_accepted(tmp_path: Path) -> None:
    table = {"pin_tools": True, "file": str(tmp_path / "pins.json")}
    settings = Settings(servers={"s": {"server": changing.build()}}, plugins={"pins": table})
    async with MCPBridge(settings=settings, plugins=[mcpbridge_catalogue, mcpbridge_pins]) as bridge:
        recorder, result = await run(
            bridge, "change", tool_call_turn(("change", {})), tool_call_turn(("echo", {"text": "hi"}))
        )
        assert "echo" not in recorder.names(1)
        echo = tool_messages(result)["echo"]
        assert echo.status == "error"
        assert "is no longer offered" in text(echo)
        assert [held.tool.name for held in mcpbridge_pins.held_tools(bridge)] == ["echo"]
        await mcpbridge_pins.accept_tools(bridge, ["s/echo"])
        again = Recorder()
        done = await live_agent(bridge, [tool_call_turn(("echo", {"text": "hi"}))], again).ainvoke(
            {"messages": [("user", "again")]}, {"configurable": {"thread_id": "u"}}
        )
    assert "echo" in again.names(0)
    assert tool_messages(done)["echo"].status == "success"


async def test_the_bridge_needs_the_catalogue_plugin() -> None:
    async with MCPBridge({"s": {"server": changing.build()}}, plugins=[]) as bridge:
        with pytest.raises(Exception, match="LiveCatalogue needs the catalogue plugin in its bridge"):
            mcpbridge_catalogue.LiveCatalogue(bridge)


async def test_a_server_gone_before_the_relisting_leaves_the_last_listing_and_the_run_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    served = serve_http(changing.build())
    try:
        config = {"url": served.url, "mode": "modern", "handle_transport_errors": True}  # a dead server: an answer
        async with MCPBridge({"s": config}, plugins=[mcpbridge_catalogue]) as bridge:
            probe = SessionProbe(bridge, "s")

            async def announced_then_gone() -> bool:
                if not probe.tools_changed:
                    return False
                served.stop()
                await probe.close()  # the next listing must reach the server again, and cannot
                return True

            recorder = Recorder({"add": announced_then_gone})
            turns = [tool_call_turn(("add", {})), tool_call_turn(("echo", {"text": "hi"})), AIMessage("Done.")]
            result = await live_agent(bridge, turns, recorder).ainvoke({"messages": [("user", "go")]}, CONFIG)
    finally:
        served.stop()
    assert recorder.names(1) == recorder.names(0)
    assert tool_messages(result)["echo"].status == "error"
    assert result["messages"][-1].content == "Done."
    assert "tool catalogue keeps its last listing for now: ServerConnectionError: MCP server 's' is unreachable" in (
        caplog.text
    )


def test_a_sync_agent_sees_the_change_too() -> None:
    with MCPBridge({"s": {"server": changing.build()}}, plugins=[mcpbridge_catalogue]) as bridge:
        probe = SessionProbe(bridge, "s")
        recorder = Recorder({"add": lambda: probe.tools_changed})
        turns = [tool_call_turn(("add", {})), tool_call_turn(("grown", {})), AIMessage("Done.")]
        result = live_agent(bridge, turns, recorder).invoke({"messages": [("user", "go")]}, CONFIG)
    assert "grown" in recorder.names(1)
    assert text(tool_messages(result)["grown"]) == "grown ran"
