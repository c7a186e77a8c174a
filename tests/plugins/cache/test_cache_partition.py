"""Tenant safety: callers with different identities never share an entry. The cache is
innermost, so the headers an outer layer adds (here a direct interceptor standing in for
the headers plugin) are part of its key; `partition_by` adds run values that never reach
the server."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import mcpbridge_cache
import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from mcpbridge import MCPBridge, ToolCallRequest
from mcpbridge.testing import ScriptedChatModel, SessionProbe, make_runtime, make_tool_call, serving, tool_call_turn
from tests.helpers.cache import READS, BridgeMaker, cache_entries, counting_server, user_header

USERS = 200


@pytest.fixture
def http_server(calls: Counter[str]) -> Iterator[dict[str, Any]]:
    """The counting server over streamable HTTP, where `whoami` reads the caller's header."""
    with serving(counting_server(calls).streamable_http_app()) as url:
        yield {"url": url}


async def whoami_as_everyone(bridge: MCPBridge) -> list[tuple[str, str, bool]]:
    """Every user calls `whoami` at once; returns (user, answer, hit) per call."""
    [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "whoami"]

    async def one(user: str) -> tuple[str, str, bool]:
        runtime = make_runtime({"user_id": user})
        message = await tool.ainvoke(make_tool_call(tool, {}, runtime=runtime))
        return user, message.content[0]["text"], cache_entries(message)[0]["hit"]

    return await asyncio.gather(*(one(f"user-{i}") for i in range(USERS)))


async def test_200_concurrent_users_with_different_headers_never_share(
    cached_bridge: BridgeMaker, http_server: dict[str, Any], calls: Counter[str]
) -> None:
    """No `partition_by`: the `x-user-id` header that reaches the server keeps them apart."""
    async with cached_bridge(
        {"s": http_server}, interceptors=[user_header], rules=[{"server": "s", "tool": "whoami"}]
    ) as bridge:
        first = await whoami_as_everyone(bridge)
        second = await whoami_as_everyone(bridge)
    assert [(user, answer) for user, answer, _ in first + second if user != answer] == []
    assert calls["whoami"] == USERS
    assert all(hit for _, _, hit in second)


async def test_the_same_headers_share(
    cached_bridge: BridgeMaker, http_server: dict[str, Any], calls: Counter[str]
) -> None:
    """The control for the test above (it can fail): calls that send the same headers share
    one entry, whoever makes them."""

    async def same_header(request: ToolCallRequest, handler: Any) -> Any:
        return await handler(request.override(headers={"X-User-Id": "everyone"}))

    async with cached_bridge(
        {"s": http_server}, interceptors=[same_header], rules=[{"server": "s", "tool": "whoami"}]
    ) as bridge:
        answers = await whoami_as_everyone(bridge)
    assert {answer for _, answer, _ in answers} == {"everyone"}
    assert calls["whoami"] == 1


async def test_partition_by_keeps_apart_callers_the_server_cannot_tell_apart(
    cached_bridge: BridgeMaker, http_server: dict[str, Any], calls: Counter[str]
) -> None:
    async with cached_bridge(
        {"s": http_server}, partition_by=["context.user_id"], rules=[{"server": "s", "tool": "whoami"}]
    ) as bridge:
        answers = await whoami_as_everyone(bridge)
        again = await whoami_as_everyone(bridge)
    assert {answer for _, answer, _ in answers + again} == {"anonymous"}
    assert calls["whoami"] == USERS
    assert all(hit for _, _, hit in again)


async def test_a_call_without_identity_is_not_cached(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(partition_by=["context.user_id"], rules=READS) as bridge:
        [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "lookup"]
        for runtime in (None, None, make_runtime({"team": "a"})):
            message = await tool.ainvoke(make_tool_call(tool, {"q": "x"}, runtime=runtime))
    assert calls["lookup"] == 3
    assert cache_entries(message) == [
        {"type": "mcpbridge_cache", "hit": False, "bypass": "no value for identity source context.user_id"}
    ]


@pytest.mark.parametrize(
    ("source", "same", "other"),
    [
        ("header.X-Tenant", {"headers": {"x-tenant": "a"}}, {"headers": {"x-tenant": "b"}}),
        ("config.configurable.user_id", {"config": {"user_id": "a"}}, {"config": {"user_id": "b"}}),
        ("state.org.id", {"state": {"org": {"id": 1}}}, {"state": {"org": {"id": 2}}}),
    ],
)
async def test_identity_sources(
    cached_bridge: BridgeMaker, calls: Counter[str], source: str, same: dict[str, Any], other: dict[str, Any]
) -> None:
    async with cached_bridge(partition_by=[source], rules=READS) as bridge:
        [tool] = [t for t in await bridge.list_tools() if t.binding.tool.name == "lookup"]
        [cache] = mcpbridge_cache.interceptors_of(bridge)

        async def ask(where: dict[str, Any]) -> bool:
            runtime = make_runtime(
                state=where.get("state"), config={"configurable": where["config"]} if "config" in where else None
            )
            request = ToolCallRequest(
                "lookup", {"q": "x"}, "s", headers=where.get("headers"), runtime=runtime, tool=tool.binding.tool
            )
            # the in-process server carries no headers: drop them after the cache has read them
            await cache(request, lambda r: SessionProbe(bridge, "s").call_tool(r.override(headers=None)))
            return bool(request.artifact[0]["hit"])

        assert [await ask(same), await ask(same), await ask(other), await ask(other)] == [False, True, False, True]
    assert calls["lookup"] == 2


@dataclass
class Context:
    user_id: str


async def test_in_an_agent_the_hit_is_in_the_tool_message(cached_bridge: BridgeMaker, calls: Counter[str]) -> None:
    async with cached_bridge(partition_by=["context.user_id"], rules=READS) as bridge:
        tools = [t for t in await bridge.list_tools() if t.binding.tool.name == "lookup"]

        async def run(thread: str, user: str) -> ToolMessage:
            model = ScriptedChatModel(turns=[tool_call_turn(("lookup", {"q": "x"}))])
            agent = create_agent(model, tools, context_schema=Context, checkpointer=InMemorySaver())
            out = await agent.ainvoke(
                {"messages": [("user", "go")]}, {"configurable": {"thread_id": thread}}, context=Context(user)
            )
            [message] = [m for m in out["messages"] if isinstance(m, ToolMessage)]
            return message

        first, again, other = await run("1", "ann"), await run("2", "ann"), await run("3", "bob")
    assert [cache_entries(m)[0]["hit"] for m in (first, again, other)] == [False, True, False]
    assert again.content == first.content
    assert calls["lookup"] == 2
