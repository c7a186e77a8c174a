"""People who share one agent (one checkpointer) and one bridge sign in to the same server at
the same time, in random interleavings, over streamable HTTP against a real authorization
server: each is asked on their own thread, each call runs once and as its own person (the
server sees that person's token, on a session of that credential's own: never refused as
another's session), a callback of one
person handed to another's paused run is refused and signs nobody in, and no token issued
reaches a message, an interrupt, the checkpoint or a log record. The agent's tools come from
the live catalogue, which lists each run as its person: once signed in, each person's model is
given the tools listed with their own credential, never another's."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import mcpbridge_auth
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.types import Command
from mcpbridge_auth import create_sign_in_resume
from mcpbridge_catalogue import LiveCatalogue

from mcpbridge import MCPBridge
from mcpbridge.testing import make_agent
from tests.plugins.auth.conftest import CALLBACK, open_as, saved
from tests.servers.signin_server import SignInServer, running

PEOPLE = ("alice", "bob", "carol", "dave")


@dataclass
class UserContext:
    user_id: str | None


def asks_whoami(messages: list[BaseMessage]) -> AIMessage:
    """Each thread's turn: `whoami` after the person's message, then what the tool said."""
    last = messages[-1]
    if isinstance(last, HumanMessage):
        return AIMessage("", tool_calls=[{"name": "whoami", "args": {}, "id": "call-1", "type": "tool_call"}])
    return AIMessage(f"tool said: {last.content}")


class Audiences(AgentMiddleware[AgentState[Any], Any, Any]):
    """Inside the catalogue: the audiences of the tools each thread's model calls are given."""

    def __init__(self) -> None:
        super().__init__()
        self.given: dict[str, list[set[str | None]]] = {}

    async def awrap_model_call(self, request: ModelRequest[Any], handler: Any) -> Any:
        thread = get_config()["configurable"]["thread_id"]
        self.given.setdefault(thread, []).append({tool.binding.audience for tool in request.tools})
        return await handler(request)


@pytest.fixture(scope="module")
def signin() -> Iterator[SignInServer]:
    with running() as server:
        yield server


def texts(result: dict[str, Any]) -> list[str]:
    return [m.text for m in result["messages"] if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # legacy: sessions bound to a credential; auto: modern
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    people=st.lists(st.sampled_from(PEOPLE), min_size=2, max_size=4, unique=True),
    delays=st.lists(st.sampled_from([0.0, 0.01, 0.03]), min_size=8, max_size=8),
    thief=st.integers(min_value=0, max_value=3),
)
async def test_people_signing_in_at_once_are_each_asked_and_answered_as_themselves(
    signin: SignInServer,
    caplog: pytest.LogCaptureFixture,
    mode: str,
    people: list[str],
    delays: list[float],
    thief: int,
) -> None:
    caplog.set_level(logging.DEBUG)
    issued_before, calls_before = len(signin.provider.issued), Counter(signin.calls)
    checkpointer = InMemorySaver()
    seen: dict[str, list[Any]] = {person: [] for person in people}
    stolen = people[thief % len(people)], people[(thief + 1) % len(people)]  # the first gets the second's callback
    callbacks: dict[str, asyncio.Future[dict[str, str]]] = {
        p: asyncio.get_running_loop().create_future() for p in people
    }

    audiences = Audiences()
    async with MCPBridge(
        {"crm": {"url": signin.url, "mode": mode}},
        plugins=[mcpbridge_auth, "catalogue"],
        plugin_settings={"auth": {"servers": ["crm"], "redirect_uri": CALLBACK}},
    ) as bridge:
        middleware = [LiveCatalogue(bridge), audiences]
        graph = make_agent(
            [asks_whoami] * 100, [], middleware=middleware, context_schema=UserContext, checkpointer=checkpointer
        )

        async def run(person: str, delay: float, later: float) -> list[str]:
            config = {"configurable": {"thread_id": f"thread-{person}"}}
            context = UserContext(person)
            await asyncio.sleep(delay)
            result = await graph.ainvoke({"messages": [("user", "who am I?")]}, config, context=context)
            [pause] = result["__interrupt__"]
            seen[person].append(pause.value)
            callback = await open_as(person, pause.value["authorization_url"])
            callbacks[person].set_result(callback)
            if person == stolen[0]:  # handed the other person's callback: refused, nobody signed in
                other = await callbacks[stolen[1]]
                with pytest.raises(ValueError, match="state"):
                    await graph.ainvoke(Command(resume={pause.id: other}), config, context=context)
            await asyncio.sleep(later)
            result = await graph.ainvoke(
                Command(resume=create_sign_in_resume(result["__interrupt__"], **callback)), config, context=context
            )
            seen[person].append(result)
            assert "__interrupt__" not in result
            return texts(result)

        answers = await asyncio.gather(*(run(person, delays[i], delays[-1 - i]) for i, person in enumerate(people)))

    assert answers == [[person] for person in people]  # each answered as themselves
    before, after = zip(*(audiences.given[f"thread-{person}"] for person in people), strict=True)
    assert all(given == {None} for given in before)  # not signed in: the server's own listing
    assert all(len(given) == 1 for given in after)  # then one listing's tools each:
    owners = [given.pop() for given in after]
    assert None not in owners  # their own,
    assert len(set(owners)) == len(people)  # and no one else's
    ran = Counter(signin.calls)
    ran.subtract(calls_before)
    assert +ran == Counter({("whoami", person): 1 for person in people})  # once each
    states = [seen[person][0]["state"] for person in people]
    assert len(set(states)) == len(people)  # each asked on their own
    tokens = signin.provider.issued[issued_before:]
    assert len(tokens) == 2 * len(people)  # an access and a refresh token each: the thief got none
    said = [record.getMessage() for record in caplog.records]
    assert not [line for line in said if "credential does not match" in line or "forgot the session" in line]
    stored = saved(checkpointer)
    shown = repr(seen).encode() + "\n".join(r.getMessage() for r in caplog.records).encode()
    for token in tokens:
        assert token.encode() not in stored
        assert token.encode() not in shown
