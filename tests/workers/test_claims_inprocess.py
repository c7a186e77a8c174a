"""Claims in one process: only calls that resumed from an interrupt claim, a retry of the
same resumed call is not refused, two resumes at once run the call once, and a store that
fails sends nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import mcpbridge_approval
import pytest
from langgraph.types import Command

from mcpbridge import (
    ClaimStoreError,
    LocalClaims,
    MCPBridge,
    Plugin,
    PluginError,
    ResumeConflictError,
    ServerConnectionError,
    ToolCallHandler,
    ToolCallRequest,
    hookimpl,
)
from mcpbridge.testing import SessionProbe, make_agent, serve_http, tool_call_turn
from tests.servers import counting

APPROVE = {"type": "approve"}


class RecordingClaims(LocalClaims):
    """In-process claims that remember every claim asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[str, str]] = []

    @property
    def held(self) -> dict[str, tuple[str, float]]:
        return self._held

    async def claim(self, key: str, owner: str) -> str:
        self.asked.append((key, owner))
        return await super().claim(key, owner)


class FailingClaims:
    async def claim(self, key: str, owner: str) -> str:
        raise ConnectionRefusedError("the claim store at postgresql://app:s3cret-pw@db/app is down")

    async def release(self, key: str, owner: str) -> None:
        raise ConnectionRefusedError("the claim store is down")

    async def aclose(self) -> None:
        return None


class Providing:
    """A plugin object that provides a claim store."""

    mcpbridge_plugin = Plugin()

    def __init__(self, store: Any, name: str = "providing") -> None:
        self.store = store
        self.mcpbridge_name = name

    @hookimpl
    def mcpbridge_claim_store(self) -> Any:
        return self.store


async def twice(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """Sends every call twice, as a retry of the same attempt would."""
    await handler(request)
    return await handler(request)


async def paused(bridge: MCPBridge, thread: str, tool: str, args: dict[str, Any]) -> Any:
    agent = make_agent([tool_call_turn((tool, args))], await bridge.list_tools())
    config = {"configurable": {"thread_id": thread}}
    result = await agent.ainvoke({"messages": [("user", "go")]}, config)
    assert [i.value["type"] for i in result["__interrupt__"]] == ["mcp_approval"]
    return agent, config, Command(resume={i.id: APPROVE for i in result["__interrupt__"]})


async def test_only_a_call_that_resumed_claims() -> None:
    server, calls = counting.build()
    store = RecordingClaims()
    async with MCPBridge({"files": {"server": server}}, plugins=[mcpbridge_approval, Providing(store)]) as bridge:
        assert bridge.claims is store
        agent = make_agent([tool_call_turn(("echo", {"text": "hi"}))], await bridge.list_tools())
        await agent.ainvoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "never-paused"}})
        assert calls["echo"] == 1
        assert store.asked == []

        agent, config, resume = await paused(bridge, "paused", "delete_file", {"path": "/a"})
        assert store.asked == []
        result = await agent.ainvoke(resume, config)
    assert result["messages"][-2].content[0]["text"] == "deleted /a"
    [(key, owner)] = store.asked
    assert key.split("\x1f")[1] == "paused"
    assert key.split("\x1f")[3] == "call-1"
    assert owner.count(":") == 2  # host:pid:token


async def test_a_retry_of_the_resumed_call_is_not_refused() -> None:
    server, calls = counting.build()
    store = RecordingClaims()
    plugins = [mcpbridge_approval, Providing(store)]
    async with MCPBridge({"files": {"server": server}}, plugins=plugins, interceptors=[twice]) as bridge:
        agent, config, resume = await paused(bridge, "retried", "delete_file", {"path": "/r"})
        result = await agent.ainvoke(resume, config)
    assert result["messages"][-2].status == "success"
    assert calls["delete_file"] == 2  # both sends of the same attempt went out
    assert len(store.asked) == 1  # claimed once: the second send is the same owner's


async def test_two_resumes_at_once_in_one_process_run_the_call_once() -> None:
    server, calls = counting.build()
    async with MCPBridge({"files": {"server": server}}, plugins=[mcpbridge_approval]) as bridge:
        agent, config, resume = await paused(bridge, "twice-resumed", "delete_file", {"path": "/t"})
        both = (agent.ainvoke(resume, config), agent.ainvoke(resume, config))
        outcomes = await asyncio.gather(*both, return_exceptions=True)
    [lost] = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert isinstance(lost, ResumeConflictError)
    assert (lost.thread_id, lost.server_name, lost.name) == ("twice-resumed", "files", "delete_file")
    assert calls["delete_file"] == 1


async def test_a_failing_claim_store_sends_nothing() -> None:
    server, calls = counting.build()
    plugins = [mcpbridge_approval, Providing(FailingClaims())]
    async with MCPBridge({"files": {"server": server}}, plugins=plugins) as bridge:
        agent, config, resume = await paused(bridge, "store-down", "delete_file", {"path": "/d"})
        with pytest.raises(
            ClaimStoreError, match="could not be claimed, so it was not sent.*ConnectionRefusedError"
        ) as caught:
            await agent.ainvoke(resume, config)
    assert calls["delete_file"] == 0
    assert "s3cret-pw" not in str(caught.value)  # the store's own error may quote its URL


async def test_a_resume_that_could_not_reach_the_server_can_be_sent_again() -> None:
    server, calls = counting.build()
    served = serve_http(server)
    store = RecordingClaims()
    plugins = [mcpbridge_approval, Providing(store)]
    try:
        async with MCPBridge({"files": {"url": served.url, "connect_timeout": 10}}, plugins=plugins) as bridge:
            agent, config, resume = await paused(bridge, "server-down", "delete_file", {"path": "/s"})
            await SessionProbe(bridge, "files").close()
            served.stop()
            with pytest.raises(ServerConnectionError) as raised:
                await agent.ainvoke(resume, config)
            assert raised.value.sent is False
            assert store.held == {}  # released: nothing reached the server
            served = serve_http(server, port=served.port)
            result = await agent.ainvoke(resume, config)
    finally:
        served.stop()
    assert result["messages"][-2].content[0]["text"] == "deleted /s"
    assert calls["delete_file"] == 1
    assert len(store.asked) == 2


def test_two_plugins_providing_claim_stores_are_refused() -> None:
    plugins = [Providing(LocalClaims(), "one"), Providing(LocalClaims(), "two")]
    with pytest.raises(PluginError, match="'one' and 'two' both provide a claim store"):
        MCPBridge({}, plugins=plugins)


def test_a_claim_store_without_claim_is_refused() -> None:
    with pytest.raises(PluginError, match="returned object from mcpbridge_claim_store, which lacks"):
        MCPBridge({}, plugins=[Providing(object())])
