"""The claiming layer is a declared layer: it shows in `bridge.chain`, in `mcpbridge plugins`
and in the interceptor trace; and a resumed call is marked on its request
(`request.resumed`), not in a context variable, so a pause run in another context still
claims its call."""

from __future__ import annotations

import asyncio
import contextvars
import json
from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Command
from mcpbridge_cli import main as cli

from mcpbridge import (
    LocalClaims,
    MCPBridge,
    Plugin,
    Question,
    ResumeConflictError,
    ToolCallHandler,
    ToolCallRequest,
    hookimpl,
)
from mcpbridge.testing import make_agent, tool_call_turn
from tests.servers import basic, counting

QUESTION = Question("claims_test", "a go-ahead", lambda payload, answer: answer)


class Recording(LocalClaims):
    """In-process claims that remember every claim asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    async def claim(self, key: str, owner: str) -> str:
        self.asked.append(key)
        return await super().claim(key, owner)


class Providing:
    mcpbridge_name = "providing"
    mcpbridge_plugin = Plugin()

    def __init__(self, store: LocalClaims) -> None:
        self.store = store

    @hookimpl
    def mcpbridge_claim_store(self) -> LocalClaims:
        return self.store


async def ask_elsewhere(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """Pauses in a copy of the context, as code run in another task or thread would: a mark
    kept in a context variable would be lost when the copy ends."""
    contextvars.copy_context().run(QUESTION.ask, request, {"why": "test"})
    return await handler(request)


async def paused(bridge: MCPBridge, thread: str) -> tuple[Any, dict[str, Any], Command[Any]]:
    agent = make_agent([tool_call_turn(("delete_file", {"path": "/x"}))], await bridge.list_tools())
    config = {"configurable": {"thread_id": thread}}
    result = await agent.ainvoke({"messages": [("user", "go")]}, config)
    [asked] = result["__interrupt__"]
    return agent, config, Command(resume={asked.id: "yes"})


def test_bridge_chain_ends_in_the_claiming_layer() -> None:
    async def direct(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request)

    assert MCPBridge({}, plugins=[]).chain == ("claiming",)
    assert MCPBridge({}, plugins=[], interceptors=[direct]).chain == ("interceptors", "claiming")


def test_mcpbridge_plugins_lists_the_claiming_layer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCPBRIDGE_PLUGINS", "claims")
    (tmp_path / "mcpbridge.toml").write_text("[plugins.claims]\n")
    assert cli(["plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["chain"] == ["claims", "claiming"]
    assert data["core_layers"] == {"claiming": {"claim_store_from": "claims"}}
    assert cli(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "chain (outermost first): claims → claiming → server" in out
    assert "claiming (core): a resumed call claims its execution once; store: from plugin 'claims'" in out


async def test_the_claiming_layer_shows_in_the_trace(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPBRIDGE_TRACE_HOOKS", "1")
    async with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        await bridge.call_tool("basic", "echo", {"text": "x"})
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("mcpbridge call:")]
    assert lines == [
        "mcpbridge call: -> claiming (basic/echo)",
        "mcpbridge call: <- claiming returned CallToolResult",
    ]


async def test_a_pause_in_another_context_still_claims_its_call() -> None:
    server, calls = counting.build()
    store = Recording()
    async with MCPBridge(
        {"files": {"server": server}}, plugins=[Providing(store)], interceptors=[ask_elsewhere]
    ) as bridge:
        agent, config, resume = await paused(bridge, "elsewhere")
        assert store.asked == []  # the first run paused: nothing claimed, nothing sent
        result = await agent.ainvoke(resume, config)
    assert result["messages"][-2].content[0]["text"] == "deleted /x"
    [key] = store.asked
    _, thread, _, tool_call, _ = key.split("\x1f")
    assert (thread, tool_call) == ("elsewhere", "call-1")
    assert calls["delete_file"] == 1


async def test_two_resumes_of_a_pause_in_another_context_run_the_call_once() -> None:
    server, calls = counting.build()
    async with MCPBridge({"files": {"server": server}}, plugins=[], interceptors=[ask_elsewhere]) as bridge:
        agent, config, resume = await paused(bridge, "elsewhere-twice")
        outcomes = await asyncio.gather(
            agent.ainvoke(resume, config), agent.ainvoke(resume, config), return_exceptions=True
        )
    assert [type(o) for o in outcomes if isinstance(o, BaseException)] == [ResumeConflictError]
    assert calls["delete_file"] == 1


def test_the_resume_mark_is_the_calls_own() -> None:
    request = ToolCallRequest(name="t", args={}, server_name="s")
    assert request.resumed.owner == ""  # a fresh call claims nothing
    assert request.override(args={"a": 1}).resumed is request.resumed  # one mark per call
    with pytest.raises(AttributeError, match="ToolCallRequest.resumed is read-only"):
        request.override(resumed=request.resumed)  # type: ignore[call-arg]
    assert ToolCallRequest(name="t", args={}, server_name="s").resumed is not request.resumed
