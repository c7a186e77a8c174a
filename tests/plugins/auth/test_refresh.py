"""Tokens are refreshed (refresh_token grant) when less than `refresh_before` seconds remain;
a refresh the authorization server refuses makes the person sign in again."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.types import Command
from mcpbridge_auth import create_sign_in_resume

from tests.plugins.auth.conftest import UserContext, agent, bridge, open_as
from tests.servers.signin_server import SignInServer


async def signed_in(b: Any, tools: list[Any], who: str) -> None:
    graph = agent(tools, ("whoami", {}))
    config = {"configurable": {"thread_id": f"sign-in-{who}"}}
    result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext(who))
    answer = await open_as(who, result["__interrupt__"][0].value["authorization_url"])
    await graph.ainvoke(
        Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=UserContext(who)
    )


async def test_a_token_about_to_expire_is_refreshed_before_the_call(signin: SignInServer) -> None:
    # Tokens live an hour; refreshing 2 hours before they end refreshes before every call.
    async with bridge(signin, refresh_before=7200) as b:
        tools = await b.list_tools()
        await signed_in(b, tools, "bob")
        assert signin.provider.refreshes == 1  # the call after the sign-in: its new token ends within 2 hours
        for thread in ("t1", "t2"):
            graph = agent(tools, ("whoami", {}))
            await graph.ainvoke(
                {"messages": [("user", "hi")]}, {"configurable": {"thread_id": thread}}, context=UserContext("bob")
            )
        assert signin.provider.refreshes == 3  # once per call, each with the rotated refresh token
        # Two calls at once refresh once: the second waits for the first and takes its token
        # (the rotated refresh token would refuse a second refresh).
        graph = agent(tools, ("whoami", {}), ("whoami", {}))
        result = await graph.ainvoke(
            {"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t3"}}, context=UserContext("bob")
        )

    assert "__interrupt__" not in result
    assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == [
        [{"type": "text", "text": "bob"}]
    ] * 2
    assert signin.provider.refreshes == 4
    assert signin.provider.code_exchanges == 1
    assert signin.calls == {("whoami", "bob"): 5}


async def test_a_fresh_token_is_not_refreshed(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()
        await signed_in(b, tools, "bob")
        graph = agent(tools, ("whoami", {}))
        await graph.ainvoke(
            {"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t"}}, context=UserContext("bob")
        )
    assert signin.provider.refreshes == 0
    assert signin.calls == {("whoami", "bob"): 2}


async def test_a_refused_refresh_pauses_for_sign_in_again(signin: SignInServer) -> None:
    async with bridge(signin, refresh_before=7200) as b:
        tools = await b.list_tools()
        await signed_in(b, tools, "bob")
        signin.provider.refresh.clear()  # the authorization server forgot the refresh token
        graph = agent(tools, ("whoami", {}))
        config = {"configurable": {"thread_id": "t"}}
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))
        [pause] = result["__interrupt__"]
        assert pause.value["reason"] == "server 'crm' needs you to sign in"
        answer = await open_as("bob", pause.value["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=UserContext("bob")
        )

    assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == [[{"type": "text", "text": "bob"}]]
    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 2


async def test_a_revoked_token_pauses_for_sign_in_again(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()
        await signed_in(b, tools, "bob")
        signin.provider.access.clear()  # revoked at the authorization server: the MCP server refuses it
        graph = agent(tools, ("whoami", {}))
        result = await graph.ainvoke(
            {"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t"}}, context=UserContext("bob")
        )
    [pause] = result["__interrupt__"]
    assert pause.value["reason"] == "server 'crm' needs you to sign in again (your sign-in expired or was revoked)"


async def test_a_token_still_valid_is_used_while_its_refresh_fails_on_the_server(
    signin: SignInServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(*args: Any) -> Any:
        raise RuntimeError("the token store of the authorization server is down")

    async with bridge(signin, refresh_before=7200) as b:
        tools = await b.list_tools()
        await signed_in(b, tools, "bob")
        monkeypatch.setattr(signin.provider, "exchange_refresh_token", broken)
        graph = agent(tools, ("whoami", {}))
        config = {"configurable": {"thread_id": "t"}}
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))

    assert "__interrupt__" not in result
    assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == [[{"type": "text", "text": "bob"}]]
    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 1
    assert "failed to answer a token refresh (HTTP 500); the token is used until it expires" in caplog.text
