"""Calls of one person that need a sign-in at the same time: one model turn calling `whoami`
twice, and two threads of the same person. One client registration per authorization server,
one sign-in the person completes once, and every paused call then runs once, as that person,
against the real loopback authorization server and a real agent with a checkpointer; and a
thread on another worker (Redis, PostgreSQL) joins the sign-in pending on the first."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langgraph.types import Command
from mcpbridge_auth import complete_sign_in, create_sign_in_resume

from tests.plugins.auth.conftest import UserContext, agent, bridge, open_as
from tests.servers.signin_server import SignInServer

pytestmark = pytest.mark.serial  # one test shares Redis or PostgreSQL: run alone

BOB = [{"type": "text", "text": "bob"}]


def config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def outputs(result: dict[str, Any]) -> list[Any]:
    return [m.content for m in result["messages"] if isinstance(m, ToolMessage)]


async def test_one_turn_calling_twice_registers_once_and_one_sign_in_runs_both(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        pauses = result["__interrupt__"]
        assert len(pauses) == 2
        assert len(signin.provider.clients) == 1  # one dynamic registration, not one per call
        # One sign-in for both: the same URL and state, so one callback answers both pauses.
        assert len({p.value["state"] for p in pauses}) == 1
        assert {p.value["tool_call_id"] for p in pauses} == {"call-1", "call-2"}

        answer = await open_as("bob", pauses[0].value["authorization_url"])
        resume = create_sign_in_resume(pauses, code=answer["code"], state=answer["state"])
        assert set(resume) == {p.id for p in pauses}
        result = await graph.ainvoke(Command(resume=resume), config("t"), context=UserContext("bob"))

    assert "__interrupt__" not in result
    assert outputs(result) == [BOB, BOB]
    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 1
    assert len(signin.provider.clients) == 1


async def test_one_turn_calling_twice_completed_at_the_apps_callback(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        pauses = result["__interrupt__"]
        callback = await open_as("bob", pauses[0].value["authorization_url"])
        await complete_sign_in(b, callback["code"], callback["state"], identity="bob")
        resume = create_sign_in_resume(pauses, state=callback["state"], signed_in=True)
        result = await graph.ainvoke(Command(resume=resume), config("t"), context=UserContext("bob"))

    assert "__interrupt__" not in result
    assert outputs(result) == [BOB, BOB]
    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 1


async def test_each_pause_answered_on_its_own_runs_once(signin: SignInServer) -> None:
    """An app that answers one pause at a time (by interrupt id) with the same callback: the
    first resume runs the first call; the second pause, still waiting, is answered with the
    same (now spent) callback and runs with the token the first stored."""
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        first, second = result["__interrupt__"]
        answer = await open_as("bob", first.value["authorization_url"])
        result = await graph.ainvoke(Command(resume={first.id: answer}), config("t"), context=UserContext("bob"))
        [waiting] = result["__interrupt__"]
        assert waiting.id == second.id
        assert signin.calls == {("whoami", "bob"): 1}
        result = await graph.ainvoke(Command(resume={second.id: answer}), config("t"), context=UserContext("bob"))

    assert "__interrupt__" not in result
    assert outputs(result) == [BOB, BOB]
    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 1


async def test_two_threads_of_one_person_sign_in_once(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()
        graphs = {thread: agent(tools, ("whoami", {})) for thread in ("t1", "t2")}
        t1, t2 = await asyncio.gather(
            *(
                graph.ainvoke({"messages": [("user", "hi")]}, config(t), context=UserContext("bob"))
                for t, graph in graphs.items()
            )
        )
        [p1], [p2] = t1["__interrupt__"], t2["__interrupt__"]
        assert len(signin.provider.clients) == 1
        assert p1.value["state"] == p2.value["state"]  # the second thread joined the first's sign-in

        answer = await open_as("bob", p1.value["authorization_url"])
        resumes = [
            graphs["t1"].ainvoke(
                Command(resume=create_sign_in_resume(t1["__interrupt__"], code=answer["code"], state=answer["state"])),
                config("t1"),
                context=UserContext("bob"),
            ),
            # The app hands the same callback to every thread that waits on that state.
            graphs["t2"].ainvoke(
                Command(resume=create_sign_in_resume(t2["__interrupt__"], code=answer["code"], state=answer["state"])),
                config("t2"),
                context=UserContext("bob"),
            ),
        ]
        results = await asyncio.gather(*resumes)

    assert [outputs(r) for r in results] == [[BOB], [BOB]]
    assert all("__interrupt__" not in r for r in results)
    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 1
    assert len(signin.provider.clients) == 1


async def test_a_thread_resumed_after_the_other_signed_in_runs_with_that_token(signin: SignInServer) -> None:
    """The second thread of the person paused on the first's sign-in (still pending, so it
    joined it); the app completes the sign-in at its callback and resumes the first thread;
    the second, resumed later with the same state, runs with the token that now exists."""
    async with bridge(signin) as b:
        tools = await b.list_tools()
        one, two = agent(tools, ("whoami", {})), agent(tools, ("whoami", {}))
        first = await one.ainvoke({"messages": [("user", "hi")]}, config("t1"), context=UserContext("bob"))
        second = await two.ainvoke({"messages": [("user", "hi")]}, config("t2"), context=UserContext("bob"))
        [pause] = second["__interrupt__"]
        callback = await open_as("bob", first["__interrupt__"][0].value["authorization_url"])
        assert pause.value["state"] == callback["state"]
        await complete_sign_in(b, callback["code"], callback["state"], identity="bob")
        done = await one.ainvoke(
            Command(resume=create_sign_in_resume(first["__interrupt__"], state=callback["state"], signed_in=True)),
            config("t1"),
            context=UserContext("bob"),
        )
        assert signin.calls == {("whoami", "bob"): 1}
        later = await two.ainvoke(
            Command(
                resume=create_sign_in_resume(second["__interrupt__"], code=callback["code"], state=callback["state"])
            ),  # spent: the token is used
            config("t2"),
            context=UserContext("bob"),
        )

    assert [outputs(done), outputs(later)] == [[BOB], [BOB]]
    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 1
    assert len(signin.provider.clients) == 1


async def test_people_signing_in_at_once_share_one_registration(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()
        results = await asyncio.gather(
            *(
                agent(tools, ("whoami", {})).ainvoke(
                    {"messages": [("user", "hi")]}, config(who), context=UserContext(who)
                )
                for who in ("alice", "bob", "carol")
            )
        )
    states = {r["__interrupt__"][0].value["state"] for r in results}
    assert len(states) == 3  # each person their own sign-in
    assert len(signin.provider.clients) == 1


async def test_a_thread_on_another_worker_joins_the_pending_sign_in(signin: SignInServer, shared_store: str) -> None:
    key = secrets.token_urlsafe(32)  # a store of this test's own: other runs' entries are unreadable
    async with bridge(signin, store=shared_store, key=key) as one, bridge(signin, store=shared_store, key=key) as two:
        first, second = agent(await one.list_tools(), ("whoami", {})), agent(await two.list_tools(), ("whoami", {}))
        t1 = await first.ainvoke({"messages": [("user", "hi")]}, config("t1"), context=UserContext("bob"))
        t2 = await second.ainvoke({"messages": [("user", "hi")]}, config("t2"), context=UserContext("bob"))
        [p1], [p2] = t1["__interrupt__"], t2["__interrupt__"]
        assert p1.value["state"] == p2.value["state"]
        answer = await open_as("bob", p1.value["authorization_url"])
        results = [
            await graph.ainvoke(
                Command(
                    resume=create_sign_in_resume(paused["__interrupt__"], code=answer["code"], state=answer["state"])
                ),
                config(thread),
                context=UserContext("bob"),
            )
            for graph, paused, thread in ((first, t1, "t1"), (second, t2, "t2"))
        ]

    assert [outputs(r) for r in results] == [[BOB], [BOB]]
    assert signin.calls == {("whoami", "bob"): 2}
    assert signin.provider.code_exchanges == 1
    assert len(signin.provider.clients) == 1
