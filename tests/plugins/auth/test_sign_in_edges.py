"""Where a sign-in must not go, and what must not happen twice: discovery never follows a
URL the server suggests on another host; a resume sent twice runs the call once; calls to a
server not listed carry no token."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import mcpbridge_approval
import mcpbridge_auth
import mcpbridge_elicitation
import pytest
from langchain_core.messages import ToolMessage
from langgraph.types import Command
from mcp.shared.auth import OAuthClientInformationFull
from mcpbridge_approval import create_approval_resume
from mcpbridge_auth import complete_sign_in, create_sign_in_resume
from mcpbridge_elicitation import create_elicitation_resume

from mcpbridge import AuthenticationError, MCPBridge
from mcpbridge.testing import make_runtime, make_tool_call, serve_http
from tests.plugins.auth.conftest import CALLBACK, UserContext, agent, bridge, open_as
from tests.servers.oauth import AuthorizationServer
from tests.servers.signin_server import SignInServer, free_port


class Elsewhere:
    """Another host's app: counts every request it gets."""

    def __init__(self) -> None:
        self.requests = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.requests += 1
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})


class Misdirecting:
    """The sign-in server, its challenges pointing `resource_metadata` at another host."""

    def __init__(self, app: Any, elsewhere: str) -> None:
        self.app, self.elsewhere = app, elsewhere

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def rewriting(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = []
                for name, value in message["headers"]:
                    if name == b"www-authenticate":
                        start = value.index(b'resource_metadata="')
                        value = value[:start] + f'resource_metadata="{self.elsewhere}"'.encode()
                    headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, rewriting)


@pytest.fixture
def misdirecting() -> Iterator[tuple[SignInServer, Elsewhere]]:
    elsewhere = Elsewhere()
    other = serve_http(elsewhere)
    port = free_port()
    signin = SignInServer(f"http://127.0.0.1:{port}", AuthorizationServer())
    served = serve_http(Misdirecting(signin.app(), f"{other.base_url}/.well-known/oauth-protected-resource"), port)
    yield signin, elsewhere
    served.stop()
    other.stop()


async def test_discovery_never_fetches_a_url_on_another_host(misdirecting: tuple[SignInServer, Elsewhere]) -> None:
    signin, elsewhere = misdirecting
    config = {"configurable": {"thread_id": "t"}}
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=UserContext("bob")
        )
    assert elsewhere.requests == 0  # the server's own well-known URL was used instead
    assert signin.calls == {("whoami", "bob"): 1}


async def test_a_resume_sent_twice_runs_the_call_once(signin: SignInServer) -> None:
    config = {"configurable": {"thread_id": "t"}}
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        resume = Command(resume=create_sign_in_resume(result["__interrupt__"], **answer))
        outcomes = await asyncio.gather(
            graph.ainvoke(resume, config, context=UserContext("bob")),
            graph.ainvoke(resume, config, context=UserContext("bob")),
            return_exceptions=True,
        )
    assert signin.calls == {("whoami", "bob"): 1}
    assert signin.provider.code_exchanges == 1
    won = [o for o in outcomes if isinstance(o, dict)]
    assert [m.content for m in won[0]["messages"] if isinstance(m, ToolMessage)] == [[{"type": "text", "text": "bob"}]]
    assert sorted(type(o).__name__ for o in outcomes) == ["ResumeConflictError", "dict"], outcomes


async def test_a_server_not_listed_gets_no_token(signin: SignInServer) -> None:
    listed = MCPBridge(
        {"crm": {"url": signin.url}, "other": {"url": signin.url}},
        plugins=[mcpbridge_auth],
        plugin_settings={"auth": {"servers": ["crm"], "redirect_uri": CALLBACK}},
        tool_name_prefix=True,
    )
    config = {"configurable": {"thread_id": "t"}}
    async with listed as b:
        tools = {tool.name: tool for tool in await b.list_tools()}
        graph = agent(list(tools.values()), ("crm_whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=UserContext("bob")
        )
        call = make_tool_call(tools["other_whoami"], {}, runtime=make_runtime(UserContext("bob")))
        with pytest.raises(AuthenticationError, match="server 'other' refused the credentials: HTTP 401"):
            await tools["other_whoami"].ainvoke(call)
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.content == [{"type": "text", "text": "bob"}]
    assert signin.calls == {("whoami", "bob"): 1}  # bob's token would have run it as bob


async def test_a_refused_code_asks_again_saying_why(signin: SignInServer) -> None:
    config = {"configurable": {"thread_id": "t"}}
    async with bridge(signin) as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))
        first = result["__interrupt__"][0].value
        await open_as("bob", first["authorization_url"])  # the person consents, the code gets lost
        forged = create_sign_in_resume(result["__interrupt__"], code="not-the-code", state=first["state"])
        result = await graph.ainvoke(Command(resume=forged), config, context=UserContext("bob"))
        [pause] = result["__interrupt__"]
        assert pause.value["reason"] == (
            "server 'crm' needs you to sign in (the last sign-in failed: the authorization server refused "
            "the authorization code (HTTP 400: invalid_grant))"
        )
        answer = await open_as("bob", pause.value["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=UserContext("bob")
        )
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.content == [{"type": "text", "text": "bob"}]
    assert signin.calls == {("whoami", "bob"): 1}


async def test_a_sign_in_then_an_elicitation_in_one_call(signin: SignInServer) -> None:
    """The elicitation plugin (outside this one) sends the call again with the person's answer:
    that second pass must not replay the sign-in pause (LangGraph hands it the next answer)."""
    config = {"configurable": {"thread_id": "t"}}
    context = UserContext("bob")
    both = MCPBridge(
        {"crm": {"url": signin.url}},
        plugins=[mcpbridge_auth, mcpbridge_elicitation],
        plugin_settings={"auth": {"servers": ["crm"], "redirect_uri": CALLBACK}},
    )
    async with both as b:
        graph = agent(await b.list_tools(), ("greet", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=context)
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        resume = create_sign_in_resume(result["__interrupt__"], **answer)
        result = await graph.ainvoke(Command(resume=resume), config, context=context)
        [asked] = result["__interrupt__"]
        assert asked.value["type"] == "mcp_elicitation"
        named = create_elicitation_resume(asked, {"name": {"action": "accept", "content": {"name": "Bob B."}}})
        result = await graph.ainvoke(Command(resume=named), config, context=context)

    assert "__interrupt__" not in result
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.content == [{"type": "text", "text": "hello Bob B., signed in as bob"}]
    assert signin.calls == {("greet", "bob"): 1}
    assert signin.provider.code_exchanges == 1


async def test_a_pre_registered_client_signs_in_without_registering(signin: SignInServer) -> None:
    signin.provider.clients["app-4711"] = OAuthClientInformationFull(
        client_id="app-4711",
        client_secret="app-secret-0815",
        token_endpoint_auth_method="client_secret_post",
        redirect_uris=[CALLBACK],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        scope="tools admin",
    )
    config = {"configurable": {"thread_id": "t"}}
    async with bridge(signin, client_id="app-4711", client_secret="app-secret-0815") as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))
        assert "client_id=app-4711" in result["__interrupt__"][0].value["authorization_url"]
        answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=UserContext("bob")
        )
    assert list(signin.provider.clients) == ["app-4711"]
    assert signin.calls == {("whoami", "bob"): 1}


class Oversized:
    """The sign-in server, its resource metadata grown past what a sign-in reads."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/.well-known/oauth-protected-resource"):
            body = b'{"resource": "' + b"x" * 1_000_000 + b'"}'
            await send(
                {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


async def test_an_oversized_metadata_document_stops_the_sign_in() -> None:
    port = free_port()
    signin = SignInServer(f"http://127.0.0.1:{port}", AuthorizationServer())
    served = serve_http(Oversized(signin.app()), port)
    try:
        async with bridge(signin) as b:
            graph = agent(await b.list_tools(), ("whoami", {}))
            config = {"configurable": {"thread_id": "t"}}
            result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))
    finally:
        served.stop()
    assert "__interrupt__" not in result
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.status == "error"
    assert "needs the person to sign in, but server 'crm''s resource metadata answered more than 262144 bytes" in str(
        message.content
    )


async def test_an_approval_then_a_sign_in_in_one_call(signin: SignInServer) -> None:
    """Approval (outside this plugin) pauses first; on every resume its answer is replayed
    before the sign-in's, and the call runs once, approved and signed in."""
    config = {"configurable": {"thread_id": "t"}}
    context = UserContext("bob")
    both = MCPBridge(
        {"crm": {"url": signin.url}},
        plugins=[mcpbridge_auth, mcpbridge_approval],
        plugin_settings={
            "auth": {"servers": ["crm"], "redirect_uri": CALLBACK},
            "approval": {"require_unannotated": True},
        },
    )
    async with both as b:
        graph = agent(await b.list_tools(), ("whoami", {}))
        result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=context)
        [asked] = result["__interrupt__"]
        assert asked.value["type"] == "mcp_approval"
        result = await graph.ainvoke(Command(resume=create_approval_resume(asked)), config, context=context)
        [pause] = result["__interrupt__"]
        assert pause.value["type"] == "mcp_sign_in"
        answer = await open_as("bob", pause.value["authorization_url"])
        result = await graph.ainvoke(
            Command(resume=create_sign_in_resume(result["__interrupt__"], **answer)), config, context=context
        )
    assert "__interrupt__" not in result
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.content == [{"type": "text", "text": "bob"}]
    assert signin.calls == {("whoami", "bob"): 1}


class SaysIss:
    """The sign-in server as an authorization server that names itself in its answers (RFC 9207)."""

    def __init__(self, app: Any, issuer: str) -> None:
        self.app, self.issuer = app, issuer

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] not in ("/authorize", "/.well-known/oauth-authorization-server"):
            return await self.app(scope, receive, send)
        metadata = scope["path"] != "/authorize"
        started: dict[str, Any] = {}

        async def changed(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
                if not metadata:
                    headers = [
                        (name, value + f"&iss={self.issuer}".encode() if name == b"location" else value)
                        for name, value in message["headers"]
                    ]
                    await send({**message, "headers": headers})
                return
            if metadata:  # one body: the metadata, with the flag added
                body = json.loads(message["body"]) | {"authorization_response_iss_parameter_supported": True}
                raw = json.dumps(body).encode()
                headers = [(n, str(len(raw)).encode() if n == b"content-length" else v) for n, v in started["headers"]]
                await send({**started, "headers": headers})
                await send({"type": "http.response.body", "body": raw})
                return
            await send(message)

        await self.app(scope, receive, changed)


async def test_an_authorization_server_that_names_itself_is_checked() -> None:
    port = free_port()
    signin = SignInServer(f"http://127.0.0.1:{port}", AuthorizationServer())
    served = serve_http(SaysIss(signin.app(), f"{signin.base_url}/"), port)
    config = {"configurable": {"thread_id": "t"}}
    try:
        async with bridge(signin) as b:
            tools = await b.list_tools()
            for thread in ("no-iss", "other-iss"):
                graph = agent(tools, ("whoami", {}))
                result = await graph.ainvoke(
                    {"messages": [("user", "hi")]}, {"configurable": {"thread_id": thread}}, context=UserContext("bob")
                )
                url = result["__interrupt__"][0].value["authorization_url"]
                async with httpx2.AsyncClient() as http:
                    location = (await http.get(url)).headers["location"]
                answer = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
                assert answer["iss"] == f"{signin.base_url}/"
                if thread == "no-iss":
                    with pytest.raises(ValueError, match=r"sends `iss` with its answers \(RFC 9207\)"):
                        await complete_sign_in(b, answer["code"], answer["state"])
                else:
                    with pytest.raises(ValueError, match=r"RFC 9207: a mix-up"):
                        await complete_sign_in(b, answer["code"], answer["state"], iss="https://evil.example/")
            graph = agent(tools, ("whoami", {}))
            result = await graph.ainvoke({"messages": [("user", "hi")]}, config, context=UserContext("bob"))
            async with httpx2.AsyncClient() as http:
                location = (await http.get(result["__interrupt__"][0].value["authorization_url"])).headers["location"]
            answer = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
            resume = create_sign_in_resume(result["__interrupt__"], **answer)
            result = await graph.ainvoke(Command(resume=resume), config, context=UserContext("bob"))
    finally:
        served.stop()
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.content == [{"type": "text", "text": "ada"}]  # no login_hint: the server's fixed user
    assert signin.provider.code_exchanges == 1


async def test_a_call_that_cannot_pause_fails_closed(signin: SignInServer) -> None:
    async with bridge(signin) as b:
        [tool] = [t for t in await b.list_tools() if t.name == "whoami"]
        for _ in range(2):  # the same, twice: nothing of the first is replayed
            call = make_tool_call(tool, {}, runtime=make_runtime(UserContext("bob")))
            message = await tool.ainvoke(call)
            assert message.status == "error"
            assert "sign-in for tool 'whoami' on server 'crm' needs to pause the agent" in str(message.content)
    assert signin.calls == {}
