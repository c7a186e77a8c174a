"""List interceptors (`mcpbridge_list_interceptors`): a listing made for a run passes them,
and one that lists with a person's credential gets that person's tools, from the session of
that credential, as tool objects of their own; the server's own listing is untouched."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

from mcpbridge import MCPBridge, PluginError, ToolListHandler, ToolListRequest, hookimpl
from mcpbridge._session import connections
from mcpbridge.testing import make_runtime, make_server, serve_http

PEOPLE = ("alice", "bob", "carol")
LISTER = "lister"
"""The server's own credential (every request to it needs one)."""


class Tokens:
    """`token-<name>` is the token of `<name>`."""

    async def verify_token(self, token: str) -> AccessToken | None:
        name = token.removeprefix("token-")
        known = name in (*PEOPLE, LISTER)
        return AccessToken(token=token, client_id="c", scopes=[], subject=name) if known else None


class Personal(MCPServer):
    """Lists `notes_<subject>` to a signed-in person, besides `shared` for everyone; never a
    tool named in `withheld`."""

    withheld: frozenset[str] = frozenset()

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        token = get_access_token()
        mine = f"notes_{token.subject}" if token is not None else None
        listed = [tool for tool in tools if tool.name == "shared" or tool.name == mine]
        return [tool for tool in listed if tool.name not in self.withheld]


def personal_server() -> Personal:
    server = Personal(
        "personal",
        token_verifier=Tokens(),
        auth=AuthSettings(issuer_url="http://127.0.0.1:9/", resource_server_url=None),
    )

    @server.tool()
    def shared() -> str:
        """For everyone."""
        return "shared"

    for name in PEOPLE:
        server.add_tool(lambda name=name: f"notes of {name}", name=f"notes_{name}", description="Private notes.")
    return server


@pytest.fixture
def personal() -> Personal:
    return personal_server()


@pytest.fixture
def server(personal: Personal) -> Iterator[dict[str, Any]]:
    """`personal` served over streamable HTTP: its config, listing with the server's own credential."""
    served = serve_http(personal.streamable_http_app())
    yield {"url": served.url, "headers": {"Authorization": f"Bearer token-{LISTER}"}}
    served.stop()


class AsPerson:
    """A plugin whose list interceptor lists as the run's person (`context`), with their token."""

    def __init__(self) -> None:
        self.seen: list[ToolListRequest] = []

    @hookimpl
    def mcpbridge_list_interceptors(self) -> list[Any]:
        async def as_person(request: ToolListRequest, handler: ToolListHandler) -> list[Any]:
            self.seen.append(request)
            who = getattr(request.runtime, "context", None)
            if who is None:
                return await handler(request)
            return await handler(request.override(authorization=f"Bearer token-{who}"))

        return [as_person]


def names(tools: list[Any]) -> set[str]:
    return {tool.name for tool in tools}


async def test_a_run_lists_its_persons_tools_as_tool_objects_of_their_own(server: dict[str, Any]) -> None:
    plugin = AsPerson()
    async with MCPBridge({"s": server}, plugins=[plugin]) as bridge:
        assert bridge.lists_per_run
        own = await bridge.list_tools()
        assert names(own) == {"shared"}
        assert [tool.binding.audience for tool in own] == [None]
        listed = {who: await bridge.list_tools(runtime=make_runtime(who)) for who in PEOPLE}
        for who, tools in listed.items():
            assert names(tools) == {"shared", f"notes_{who}"}
            (audience,) = {tool.binding.audience for tool in tools}
            assert audience is not None
            assert "token" not in audience  # a digest, never the credential
            notes = next(tool for tool in tools if tool.name == f"notes_{who}")
            assert notes.binding.tool.name == f"notes_{who}"
        assert len({tools[0].binding.audience for tools in listed.values()}) == len(PEOPLE)
        # Listing again hands out the same objects; the server's own listing is untouched.
        again = await bridge.list_tools(runtime=make_runtime("alice"))
        assert {id(tool) for tool in again} == {id(tool) for tool in listed["alice"]}
        assert await bridge.list_tools() == own
        assert own[0].binding.definition.withdrawn is None
        assert [request.runtime for request in plugin.seen[:1]] == [None]  # a listing outside any run


async def test_a_listing_for_a_run_lists_its_servers_one_after_another(server: dict[str, Any]) -> None:
    """A run's pauses must come in one order every time it resumes: its servers are listed in turn."""
    running: list[str] = []
    overlapped = False

    class Watch:
        @hookimpl
        def mcpbridge_list_interceptors(self) -> list[Any]:
            async def watch(request: ToolListRequest, handler: ToolListHandler) -> list[Any]:
                nonlocal overlapped
                overlapped = overlapped or bool(running)
                running.append(request.server_name)
                try:
                    await asyncio.sleep(0)  # the others, when listed at once, start here
                    return await handler(request)
                finally:
                    running.remove(request.server_name)

            return [watch]

    servers = {"a": server, "b": server, "c": server}
    async with MCPBridge(servers, plugins=[Watch()], tool_name_prefix=True) as bridge:
        await bridge.list_tools(runtime=make_runtime("alice"))
        assert not overlapped
        await bridge.list_tools()  # outside a run: at once, as always
        assert overlapped


async def test_a_closed_credential_session_lets_go_of_its_tools(
    server: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connections, "CREDENTIAL_SESSIONS", 1)
    async with MCPBridge({"s": server}, plugins=[AsPerson()]) as bridge:
        alices = [weakref.ref(tool) for tool in await bridge.list_tools(runtime=make_runtime("alice"))]
        await bridge.list_tools(runtime=make_runtime("bob"))
        await bridge.list_tools(runtime=make_runtime("carol"))  # alice's session is closed by now
        gc.collect()
        assert [ref() for ref in alices] == [None] * len(alices)  # her tools were let go


async def test_a_credential_for_a_server_without_headers_lists_its_one_session() -> None:
    def hello() -> str:
        """Hi."""
        return "hi"

    async with MCPBridge({"local": make_server(hello)}, plugins=[AsPerson()]) as bridge:
        tools = await bridge.list_tools(runtime=make_runtime("alice"))
        assert names(tools) == {"hello"}
        assert tools[0].binding.audience is None
        assert tools == await bridge.list_tools()


async def test_a_list_interceptor_that_is_not_callable_names_its_plugin() -> None:
    class Wrong:
        @hookimpl
        def mcpbridge_list_interceptors(self) -> list[Any]:
            return ["not a function"]

    with pytest.raises(PluginError, match=r"plugin 'Wrong' returned 'not a function' from mcpbridge_list_interceptors"):
        MCPBridge({}, plugins=[Wrong()])
