"""A person's own tools: the live catalogue lists each run's tools as its person, so tools a
server lists only to signed-in people appear in the run that signed in (and in no one
else's), and a server that lists nothing without a sign-in pauses the model call for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcpbridge_auth
import pytest
from langchain_core.messages import ToolMessage
from langgraph.types import Command
from mcpbridge_auth import PAYLOAD_TYPE, create_sign_in_resume
from mcpbridge_catalogue import LiveCatalogue

from mcpbridge import AuthenticationError, MCPBridge
from mcpbridge.testing import make_agent, tool_call_turn
from tests.plugins.auth.conftest import CALLBACK, UserContext, answer_with_tool_output, open_as
from tests.plugins.catalogue.catalogue_support import Recorder
from tests.servers.signin_server import SignInServer, running


def bridge(server: SignInServer) -> MCPBridge:
    return MCPBridge(
        {"crm": {"url": server.url}},
        plugins=[mcpbridge_auth, "catalogue"],
        plugin_settings={"auth": {"servers": ["crm"], "redirect_uri": CALLBACK}},
    )


def live_agent(b: MCPBridge, recorder: Recorder, *turns: Any) -> Any:
    turns_ = [*turns, answer_with_tool_output]
    return make_agent(turns_, [], middleware=[LiveCatalogue(b), recorder], context_schema=UserContext)


def config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def outputs(result: dict[str, Any]) -> dict[str, Any]:
    return {m.name: m.content for m in result["messages"] if isinstance(m, ToolMessage)}


async def test_tools_listed_only_to_signed_in_people_appear_in_the_run_that_signed_in() -> None:
    with running() as signin:
        async with bridge(signin) as b:
            assert b.lists_per_run
            bob = Recorder()
            graph = live_agent(b, bob, tool_call_turn(("whoami", {})), tool_call_turn(("my_notes", {})))
            result = await graph.ainvoke({"messages": [("user", "hi")]}, config("bob"), context=UserContext("bob"))
            assert "my_notes" not in bob.names(0)  # not signed in yet: the server's public listing
            assert {"whoami", "admin_report", "greet"} <= set(bob.names(0))
            answer = await open_as("bob", result["__interrupt__"][0].value["authorization_url"])
            resume = create_sign_in_resume(result["__interrupt__"], **answer)
            result = await graph.ainvoke(Command(resume=resume), config("bob"), context=UserContext("bob"))

            assert "my_notes" in bob.names(1)  # the next model call of the same run: bob's own listing
            assert outputs(result) == {
                "whoami": [{"type": "text", "text": "bob"}],
                "my_notes": [{"type": "text", "text": "notes of bob"}],
            }

            # Another person's run, on the same agent's bridge: bob's tools never reach it.
            eve = Recorder()
            other = live_agent(b, eve, tool_call_turn(("my_notes", {})))
            result = await other.ainvoke({"messages": [("user", "hi")]}, config("eve"), context=UserContext("eve"))
            assert "my_notes" not in eve.names(0)
            [refused] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
            assert refused.status == "error"
            assert "not a tool offered to this agent" in str(refused.content)
            # A listing outside any run is the server's own, as before.
            assert "my_notes" not in {tool.name for tool in await b.list_tools()}

    assert signin.calls == {("whoami", "bob"): 1, ("my_notes", "bob"): 1}
    assert signin.provider.code_exchanges == 1


@asynccontextmanager
async def opened(b: MCPBridge, loop: str) -> AsyncIterator[MCPBridge]:
    """`b` on this loop (`async with`), or on a loop thread of its own (`with`, as under `langgraph dev`)."""
    if loop == "this loop":
        async with b:
            yield b
    else:
        with b:
            yield b


@pytest.mark.parametrize("loop", ["this loop", "its own loop thread"])
async def test_a_server_that_lists_nothing_without_a_sign_in_pauses_the_model_call(loop: str) -> None:
    with running(private_listing=True) as signin:
        async with opened(bridge(signin), loop) as b:
            with pytest.raises(AuthenticationError):
                await b.list_tools()  # outside a run there is no one to ask
            recorder = Recorder()
            graph = live_agent(b, recorder, tool_call_turn(("my_notes", {})))
            result = await graph.ainvoke({"messages": [("user", "hi")]}, config("t"), context=UserContext("bob"))
            [pause] = result["__interrupt__"]
            payload = pause.value
            assert recorder.requests == []  # the model was not called
            assert payload["type"] == PAYLOAD_TYPE
            assert {k: payload[k] for k in ("server_name", "name", "display_name", "tool_call_id")} == {
                "server_name": "crm",
                "name": None,
                "display_name": None,
                "tool_call_id": None,
            }
            assert payload["reason"] == "server 'crm' needs you to sign in"

            answer = await open_as("bob", payload["authorization_url"])
            resume = create_sign_in_resume(result["__interrupt__"], **answer)
            result = await graph.ainvoke(Command(resume=resume), config("t"), context=UserContext("bob"))

            assert "__interrupt__" not in result
            assert "my_notes" in recorder.names(0)
            assert outputs(result) == {"my_notes": [{"type": "text", "text": "notes of bob"}]}

    assert signin.calls == {("my_notes", "bob"): 1}
    assert signin.provider.code_exchanges == 1
