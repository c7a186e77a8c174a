"""A call to a server that acts for a person pauses for that person's sign-in, resumes with
the code the app's callback received, and runs once, as that person, over streamable HTTP
against a real authorization server and a real agent with a checkpointer."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx2
import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from mcpbridge_auth import PAYLOAD_TYPE, SignedIn, complete_sign_in, create_sign_in_resume, revoke

from mcpbridge.testing import make_agent, tool_call_turn
from tests.plugins.auth.conftest import UserContext, agent, answer_with_tool_output, bridge, open_as, saved
from tests.servers.signin_server import SignInServer


def config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def tool_messages(result: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in result["messages"] if isinstance(m, ToolMessage)]


async def test_first_call_pauses_with_the_authorization_url_then_runs_once_as_that_person(
    signin: SignInServer,
) -> None:
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "who am I?")]}, config("t"), context=UserContext("bob"))
        [pause] = result["__interrupt__"]
        payload = pause.value
        assert signin.calls == {}  # refused before the tool ran
        assert payload["type"] == PAYLOAD_TYPE
        assert {k: payload[k] for k in ("server_name", "name", "display_name", "tool_call_id")} == {
            "server_name": "crm",
            "name": "whoami",
            "display_name": "whoami",
            "tool_call_id": "call-1",
        }
        assert payload["reason"] == "server 'crm' needs you to sign in"
        assert payload["scopes"] == ["tools"]
        assert payload["issuer"] == f"{signin.base_url}/"
        url = payload["authorization_url"]
        assert url.startswith(f"{signin.base_url}/authorize?")
        assert f"state={payload['state']}" in url
        assert "code_challenge_method=S256" in url
        assert "resource=http%3A%2F%2F127.0.0.1" in url

        answer = await open_as("bob", url)
        resume = create_sign_in_resume(result["__interrupt__"], **answer)
        result = await graph.ainvoke(Command(resume=resume), config("t"), context=UserContext("bob"))

    assert "__interrupt__" not in result
    [message] = tool_messages(result)
    assert message.status == "success"
    assert message.content == [{"type": "text", "text": "bob"}]
    assert signin.calls == {("whoami", "bob"): 1}
    assert signin.provider.code_exchanges == 1


async def test_a_signed_in_person_is_not_asked_again(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()
        graph = agent(tools, ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t1"), context=UserContext("bob"))
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)),
            config("t1"),
            context=UserContext("bob"),
        )
        again = agent(tools, ("whoami", {}), ("whoami", {}))
        result = await again.ainvoke({"messages": [("user", "hi")]}, config("t2"), context=UserContext("bob"))

    assert "__interrupt__" not in result
    assert [m.content for m in tool_messages(result)] == [[{"type": "text", "text": "bob"}]] * 2
    assert signin.calls == {("whoami", "bob"): 3}
    assert signin.provider.code_exchanges == 1


async def test_a_wrong_state_is_refused_and_the_pause_can_be_answered_again(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        [pause] = result["__interrupt__"]
        answer = await open_as("bob", pause.value["authorization_url"])

        with pytest.raises(ValueError, match="no pending sign-in in these interrupts has this state"):
            create_sign_in_resume(result["__interrupt__"], code=answer["code"], state="forged")
        wrong = {pause.id: {"code": answer["code"], "state": "forged"}}
        with pytest.raises(ValueError, match="the answer's `state` is not this sign-in's"):
            await graph.ainvoke(Command(resume=wrong), config("t"), context=UserContext("bob"))
        assert signin.provider.code_exchanges == 0
        assert signin.calls == {}

        resume = create_sign_in_resume(result["__interrupt__"], **answer)
        result = await graph.ainvoke(Command(resume=resume), config("t"), context=UserContext("bob"))

    assert tool_messages(result)[0].content == [{"type": "text", "text": "bob"}]
    assert signin.calls == {("whoami", "bob"): 1}


async def test_a_replayed_callback_is_refused(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()
        first = agent(tools, ("whoami", {}))
        result = await first.ainvoke({"messages": [("user", "hi")]}, config("bob"), context=UserContext("bob"))
        used = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        await first.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **used)),
            config("bob"),
            context=UserContext("bob"),
        )
        # The same callback again: at the app's route, and onto another person's pause.
        with pytest.raises(ValueError, match="no pending sign-in has this state: it was already used"):
            await complete_sign_in(b, used["code"], used["state"])
        second = agent(tools, ("whoami", {}))
        paused = await second.ainvoke({"messages": [("user", "hi")]}, config("eve"), context=UserContext("eve"))
        [pause] = paused["__interrupt__"]
        with pytest.raises(ValueError, match="not this sign-in's"):
            await second.ainvoke(Command(resume={pause.id: used}), config("eve"), context=UserContext("eve"))

    assert signin.calls == {("whoami", "bob"): 1}
    assert signin.provider.code_exchanges == 1


async def test_the_app_completes_the_sign_in_at_its_callback(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        checkpointer = InMemorySaver()
        tools = await b.list_tools()

        def graph_() -> Any:
            turns = [tool_call_turn(("whoami", {})), answer_with_tool_output]
            return make_agent(turns, tools, context_schema=UserContext, checkpointer=checkpointer)

        result = await graph_().ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        callback = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])

        with pytest.raises(ValueError, match="started by another person"):
            await complete_sign_in(b, callback["code"], callback["state"], identity="eve")
        graph = graph_()
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t2"), context=UserContext("bob"))
        callback = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        signed = await complete_sign_in(b, callback["code"], callback["state"], identity="bob")
        assert signed == SignedIn(identity="bob", server_name="crm", issuer=f"{signin.base_url}/", scopes=["tools"])

        resume = create_sign_in_resume(result["__interrupt__"], state=callback["state"], signed_in=True)
        result = await graph.ainvoke(Command(resume=resume), config("t2"), context=UserContext("bob"))

    assert tool_messages(result)[0].content == [{"type": "text", "text": "bob"}]
    assert signin.calls == {("whoami", "bob"): 1}
    assert callback["code"].encode() not in saved(checkpointer)


async def test_no_secret_reaches_a_payload_the_checkpoint_a_log_or_an_error(
    signin: SignInServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    checkpointer = InMemorySaver()
    async with bridge(signin, refresh_before=7200) as b:  # every call refreshes: more tokens to leak
        tools = await b.list_tools()
        graph = make_agent(
            [tool_call_turn(("whoami", {})), answer_with_tool_output, tool_call_turn(("admin_report", {}))],
            tools,
            context_schema=UserContext,
            checkpointer=checkpointer,
        )
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        payloads = [result["__interrupt__"][0].value]
        answer = await open_as("bob", payloads[0]["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)),
            config("t"),
            context=UserContext("bob"),
        )
        result = await graph.ainvoke({"messages": [("user", "admin?")]}, config("t"), context=UserContext("bob"))
        payloads.append(result["__interrupt__"][0].value)
        answer = await open_as("bob", payloads[1]["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)),
            config("t"),
            context=UserContext("bob"),
        )

    secrets = [*signin.provider.issued, *(c.client_secret for c in signin.provider.clients.values() if c.client_secret)]
    assert len(secrets) >= 4
    checkpoint = saved(checkpointer)
    texts = [repr(payloads), caplog.text, *(str(m.content) for m in tool_messages(result))]
    for secret in secrets:
        assert secret.encode() not in checkpoint
        assert not any(secret in text for text in texts)


@pytest.mark.parametrize(
    ("identity", "hint"),
    [
        ("context.user_id", 'pass the person\'s id when invoking the agent: `context={"user_id": ...}`'),
        (
            "config.configurable.user_id",
            'pass the person\'s id when invoking the agent: `config={"configurable": {"user_id": ...}}`',
        ),
        ("state.user_id", "put the person's id in the graph state, e.g. `{\"user_id\": ...}` in the run's input"),
        ("header.X-User-Id", "set the `x-user-id` header on each call before this plugin sees it"),
    ],
)
async def test_a_call_without_an_identity_fails_naming_the_key(signin: SignInServer, identity: str, hint: str) -> None:
    source = identity.lower() if identity.startswith("header.") else identity
    async with bridge(signin, identity=identity) as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext(None))
    assert "__interrupt__" not in result
    [message] = tool_messages(result)
    assert message.status == "error"
    assert f"[plugins.auth] identity reads `{source}`" in str(message.content)
    assert f"the run has no value for `{source}`" in str(message.content)
    assert hint in str(message.content)
    assert "context=" not in str(message.content) or source.startswith("context.")
    assert signin.calls == {}
    assert signin.provider.clients == {}


async def test_two_people_are_each_answered_as_themselves(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()

        async def session(who: str) -> list[str]:
            graph = agent(tools, ("whoami", {}))
            result = await graph.ainvoke({"messages": [("user", "hi")]}, config(who), context=UserContext(who))
            answer = await open_as(who, result["__interrupt__"][0].value["authorization_url"])
            resume = create_sign_in_resume(result["__interrupt__"], **answer)
            result = await graph.ainvoke(Command(resume=resume), config(who), context=UserContext(who))
            again = agent(tools, ("whoami", {}))
            later = await again.ainvoke({"messages": [("user", "hi")]}, config(f"{who}-2"), context=UserContext(who))
            return [str(m.content[0]["text"]) for r in (result, later) for m in tool_messages(r)]  # type: ignore[index]

        answers = await asyncio.gather(*(session(who) for who in ("alice", "bob", "carol")))

    assert answers == [["alice"] * 2, ["bob"] * 2, ["carol"] * 2]
    assert signin.calls == {("whoami", who): 2 for who in ("alice", "bob", "carol")}


async def test_revoke_signs_the_person_out(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()
        graph = agent(tools, ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)),
            config("t"),
            context=UserContext("bob"),
        )
        assert await revoke(b, "bob", "crm") is True
        assert await revoke(b, "bob", "crm") is False
        assert signin.provider.revocations == 2
        assert not signin.provider.access
        assert not signin.provider.refresh
        again = agent(tools, ("whoami", {}))
        result = await again.ainvoke({"messages": [("user", "hi")]}, config("t2"), context=UserContext("bob"))
    assert result["__interrupt__"][0].value["reason"] == "server 'crm' needs you to sign in"


async def test_a_person_who_declines_ends_the_call_unsent(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        state = result["__interrupt__"][0].value["state"]
        with pytest.raises(ValueError, match="`error` is the OAuth error code"):
            create_sign_in_resume(result["__interrupt__"], state=state, error='say "hi"')
        resume = create_sign_in_resume(result["__interrupt__"], state=state, error="access_denied")
        result = await graph.ainvoke(Command(resume=resume), config("t"), context=UserContext("bob"))
        with pytest.raises(ValueError, match="no pending sign-in has this state"):
            await complete_sign_in(b, "any-code", state)  # the declined sign-in is spent

    [message] = tool_messages(result)
    assert message.status == "error"
    assert "the person did not sign in to server 'crm' (access_denied, said the authorization server)" in str(
        message.content
    )
    assert signin.calls == {}


async def test_a_registration_the_server_forgot_is_made_again(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        tools = await b.list_tools()
        graph = agent(tools, ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
        signin.provider.clients.clear()  # the authorization server restarted and forgot its clients
        async with httpx2.AsyncClient() as http:
            page = await http.get(result["__interrupt__"][0].value["authorization_url"])
        assert page.status_code == 400  # no redirect: the person sees the server's error page; the app gives up
        state = result["__interrupt__"][0].value["state"]
        resume = create_sign_in_resume(result["__interrupt__"], state=state, error="invalid_client")
        await graph.ainvoke(Command(resume=resume), config("t"), context=UserContext("bob"))

        again = agent(tools, ("whoami", {}))
        result = await again.ainvoke({"messages": [("user", "hi")]}, config("t2"), context=UserContext("bob"))
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        resume = create_sign_in_resume(result["__interrupt__"], **answer)
        result = await again.ainvoke(Command(resume=resume), config("t2"), context=UserContext("bob"))

    assert tool_messages(result)[0].content == [{"type": "text", "text": "bob"}]
    assert len(signin.provider.clients) == 1
