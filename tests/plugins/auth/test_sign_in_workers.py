"""Workers sharing one store (Redis, PostgreSQL) and one checkpointer: a sign-in paused on one
worker is resumed on another, and a person signed in on one is signed in on all."""

from __future__ import annotations

import secrets

import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from mcpbridge_auth import create_sign_in_resume

from mcpbridge.testing import make_agent, tool_call_turn
from tests.plugins.auth.conftest import UserContext, answer_with_tool_output, bridge, open_as
from tests.servers.signin_server import SignInServer

pytestmark = pytest.mark.serial


async def test_a_sign_in_paused_on_one_worker_resumes_on_another(signin: SignInServer, shared_store: str) -> None:
    key = secrets.token_urlsafe(32)  # a store of this test's own: other runs' entries are unreadable
    checkpointer = InMemorySaver()
    config = {"configurable": {"thread_id": "t"}}

    def graph(tools: list[object]) -> object:
        turns = [tool_call_turn(("whoami", {})), answer_with_tool_output]
        return make_agent(turns, tools, context_schema=UserContext, checkpointer=checkpointer)

    async with bridge(signin, store=shared_store, key=key) as one, bridge(signin, store=shared_store, key=key) as two:
        first, second = graph(await one.list_tools()), graph(await two.list_tools())
        result = await first.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))  # type: ignore[attr-defined]
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        resume = Command(resume=create_sign_in_resume(result["__interrupt__"], **answer))
        result = await second.ainvoke(resume, config, context=UserContext("bob"))  # type: ignore[attr-defined]
        assert [m.content for m in result["messages"] if isinstance(m, ToolMessage)] == [
            [{"type": "text", "text": "bob"}]
        ]

        later = graph(await one.list_tools())
        result = await later.ainvoke(  # type: ignore[attr-defined]
            {"messages": [("user", "again")]}, {"configurable": {"thread_id": "t2"}}, context=UserContext("bob")
        )
        assert "__interrupt__" not in result

    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 1
