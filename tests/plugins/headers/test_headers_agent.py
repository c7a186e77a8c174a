"""The seed scenario: an agent run with `context={"user_id": ...}` reaches the server as
`x-user-id`, on every tool call of that run and only that run's calls."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import mcpbridge_headers
from langchain.agents import AgentState, create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel, tool_call_turn
from tests.helpers.headers import RecordingServer


@dataclass
class UserContext:
    user_id: str


class AccountState(AgentState[Any]):
    account: str


def answer_with_tool_output(messages: list[BaseMessage]) -> AIMessage:
    outputs = [m.content[0]["text"] for m in messages if isinstance(m, ToolMessage)]  # type: ignore[index]
    return AIMessage(f"You are {' and '.join(outputs)}.")


def agent(tools: list[Any], *calls: tuple[str, dict[str, Any]]) -> Any:
    model = ScriptedChatModel(turns=[tool_call_turn(*calls), answer_with_tool_output])
    return create_agent(model, tools, context_schema=UserContext, checkpointer=InMemorySaver())


async def test_agent_context_user_id_reaches_the_server(crm: RecordingServer) -> None:
    bridge = MCPBridge(
        {"crm": {"url": crm.url}},
        plugins=[mcpbridge_headers],
        plugin_settings={"headers": {"servers": {"crm": {"x-user-id": "context.user_id"}}}},
    )
    async with bridge:
        tools = await bridge.list_tools()

        async def run(user: str) -> str:
            graph = agent(tools, ("whoami", {}), ("whoami", {}))
            config = {"configurable": {"thread_id": user}}
            result = await graph.ainvoke({"messages": [("user", "who am I?")]}, config, context=UserContext(user))
            return str(result["messages"][-1].content)

        answers = await asyncio.gather(run("123"), run("456"))

    assert answers == ["You are 123 and 123.", "You are 456 and 456."]
    assert sorted(r["x-user-id"] for r in crm.requests if "x-user-id" in r) == ["123", "123", "456", "456"]


async def test_state_config_env_and_literal_sources(crm: RecordingServer, monkeypatch: Any) -> None:
    monkeypatch.setenv("CRM_TOKEN", "Bearer s3cret")
    headers = {
        "x-user-id": "context.user_id",
        "x-account": "state.account",
        "x-tenant": "config.configurable.tenant",
        "authorization": "env:CRM_TOKEN",
        "x-static": "literal:context.is-not-read",
    }
    bridge = MCPBridge(
        {"crm": {"url": crm.url}},
        plugins=[mcpbridge_headers],
        plugin_settings={"headers": {"servers": {"crm": headers}}},
    )
    async with bridge:
        tools = await bridge.list_tools()
        model = ScriptedChatModel(turns=[tool_call_turn(("headers_seen", {}))])
        graph = create_agent(
            model, tools, context_schema=UserContext, state_schema=AccountState, checkpointer=InMemorySaver()
        )
        config = {"configurable": {"thread_id": "t", "tenant": "acme"}}
        result = await graph.ainvoke(
            {"messages": [("user", "hi")], "account": "acct-9"}, config, context=UserContext("u1")
        )

    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert json.loads(message.content[0]["text"]) == {
        "authorization": "Bearer s3cret",
        "x-account": "acct-9",
        "x-static": "context.is-not-read",
        "x-tenant": "acme",
        "x-user-id": "u1",
    }
