"""Step-up: a 403 `insufficient_scope` pauses again for the union of the scopes held and the
scopes asked, and the call goes on, once, with the wider token."""

from __future__ import annotations

from langchain_core.messages import ToolMessage
from langgraph.types import Command
from mcpbridge_auth import create_sign_in_resume

from tests.plugins.auth.conftest import UserContext, agent, bridge, open_as
from tests.servers.signin_server import SignInServer


async def test_a_wider_scope_is_asked_for_and_the_call_runs_once(signin: SignInServer) -> None:
    config = {"configurable": {"thread_id": "t"}}
    context = UserContext("bob")
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("admin_report", {}))
        result = await graph.ainvoke({"messages": [("user", "report")]}, config, context=context)
        first = result["__interrupt__"][0].value
        assert (first["reason"], first["scopes"]) == ("server 'crm' needs you to sign in", ["tools"])

        answer = await open_as("bob", first["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=context
        )
        [pause] = result["__interrupt__"]
        second = pause.value
        assert second["reason"] == "server 'crm' needs the wider scope 'admin'"
        assert second["scopes"] == ["tools", "admin"]
        assert second["state"] != first["state"]
        assert second["tool_call_id"] == first["tool_call_id"]
        assert signin.calls == {}

        answer = await open_as("bob", second["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=context
        )

    assert "__interrupt__" not in result
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.status == "success"
    assert message.content == [{"type": "text", "text": "report for bob"}]
    assert signin.calls == {("admin_report", "bob"): 1}
    assert signin.provider.code_exchanges == 2
    assert len(signin.provider.clients) == 1  # registered once, with every scope the server offers


async def test_the_wider_token_serves_the_narrower_tools_too(signin: SignInServer) -> None:
    context = UserContext("bob")
    async with bridge(signin) as b:
        tools = await b.list_tools()
        graph = agent(tools, ("admin_report", {}))
        config = {"configurable": {"thread_id": "t"}}
        result = await graph.ainvoke({"messages": [("user", "report")]}, config, context=context)
        for _ in range(2):
            answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
            result = await graph.ainvoke(
                Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=context
            )
        later = agent(tools, ("whoami", {}), ("admin_report", {}))
        result = await later.ainvoke(
            {"messages": [("user", "again")]}, {"configurable": {"thread_id": "t2"}}, context=context
        )

    assert "__interrupt__" not in result
    assert signin.calls == {("admin_report", "bob"): 2, ("whoami", "bob"): 1}
