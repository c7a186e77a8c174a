"""npm `@modelcontextprotocol/server-everything` over stdio and streamable HTTP: everyday
calls, progress reaching the events plugin, and elicitation without an answerer."""

from __future__ import annotations

from typing import Any

import mcpbridge_elicitation
import mcpbridge_events
import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from mcp.types import ElicitResult

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel

from .support import call, invoke, structured, text, tools_of

ELICITATION_TOOLS = {"trigger-elicitation-request", "trigger-elicitation-request-async", "trigger-url-elicitation"}


@pytest.fixture(params=["stdio", "http"])
def everything(request: pytest.FixtureRequest, everything_stdio: dict[str, Any]) -> dict[str, Any]:
    if request.param == "stdio":
        return everything_stdio
    config: dict[str, Any] = request.getfixturevalue("everything_http").config
    return config


async def test_everyday_calls(everything: dict[str, Any]) -> None:
    async with MCPBridge({"ev": everything}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        assert {"echo", "get-sum", "get-structured-content", "trigger-long-running-operation"} <= set(tools)
        assert tools["echo"].metadata["annotations"]["readOnlyHint"] is True

        echo = await invoke(bridge, "echo", {"message": "hi"})
        assert echo.status == "success"
        assert text(echo) == "Echo: hi"

        total = await invoke(bridge, "get-sum", {"a": 2, "b": 3})
        assert "5" in text(total)

        weather = await invoke(bridge, "get-structured-content", {"location": "Chicago"})
        assert weather.status == "success"
        assert set(structured(weather)) >= {"temperature", "conditions", "humidity"}

        failed = await invoke(bridge, "get-resource-reference", {"resourceType": "Text", "resourceId": 0})
        assert failed.status == "error"
        assert "Invalid resourceId: 0" in text(failed)

        image = await invoke(bridge, "get-tiny-image", {})
        assert "image" in [block["type"] for block in image.content]


async def test_progress_reaches_the_events_plugin(everything: dict[str, Any]) -> None:
    """Issue 13 point 7: progress from the server arrives as `progress` events of the call it
    belongs to (stdio used to deliver it outside the run's context, where it was lost)."""
    async with MCPBridge({"ev": everything}, plugins=[mcpbridge_events]) as bridge:
        tools = await bridge.list_tools()
        [long_running] = [t for t in tools if t.metadata["name"] == "trigger-long-running-operation"]
        model = ScriptedChatModel(
            turns=[
                AIMessage(
                    "",
                    tool_calls=[
                        {
                            "name": long_running.name,
                            "args": {"duration": 0.3, "steps": 3},
                            "id": "call-1",
                            "type": "tool_call",
                        }
                    ],
                )
            ]
        )
        graph = create_agent(model, tools, checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t1"}}
        chunks = [c async for c in graph.astream({"messages": [("user", "go")]}, config, stream_mode="custom")]
    events = [c for c in chunks if isinstance(c, dict) and c.get("type") == "mcpbridge.tool_call"]
    progress = [(e["progress"], e["total"]) for e in events if e["event"] == "progress"]
    assert progress == [(1, 3), (2, 3), (3, 3)], events
    assert events[-1]["event"] == "finished"
    assert all(e["tool_call_id"] == "call-1" for e in events)


async def test_elicitation_without_an_answerer(everything: dict[str, Any]) -> None:
    """Issue 13 point 9: with the elicitation plugin installed but no `on_elicitation` for a
    legacy server, either the server is not offered elicitation (so its elicitation tools are
    not listed), or calling one fails with advice that works when followed."""
    async with MCPBridge({"ev": everything}, plugins=[mcpbridge_elicitation]) as bridge:
        tools = await tools_of(bridge)
        offered = sorted(ELICITATION_TOOLS & set(tools))
        if not offered:
            return
        message = await tools["trigger-elicitation-request"].ainvoke(call(tools["trigger-elicitation-request"], {}))
    assert message.status == "error", text(message)
    advice = text(message)
    assert "on_elicitation" in advice or 'mode = "modern"' in advice, advice
    if 'mode = "modern"' in advice:
        async with MCPBridge({"ev": {**everything, "mode": "modern"}}, plugins=[mcpbridge_elicitation]) as modern:
            assert "echo" in await tools_of(modern), f"advice {advice!r} does not work against this server"
    if "on_elicitation" in advice:
        await test_on_elicitation_answers_a_legacy_server(everything)


def accept(server: str, params: Any) -> ElicitResult:
    return ElicitResult(action="accept", content={"name": "Ada Lovelace"})


async def test_on_elicitation_answers_a_legacy_server(everything: dict[str, Any]) -> None:
    """With `on_elicitation` configured the server is offered elicitation and its question
    is answered mid-call."""
    async with MCPBridge(
        {"ev": everything},
        plugins=[mcpbridge_elicitation],
        plugin_settings={"elicitation": {"on_elicitation": accept}},
    ) as bridge:
        reply = await invoke(bridge, "trigger-elicitation-request", {})
    assert reply.status == "success", text(reply)
    assert "Ada Lovelace" in text(reply)
