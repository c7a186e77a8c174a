"""A legacy server's mid-call requests (sampling, elicitation) are one user's alone where the
transport ties them to a call: they use up that call's budget (`max_requests`,
`max_rounds`), and only that call's observers hear `server.asked`. Bob's call starts and
waits, Alice's asks, then Bob's asks (the server orders them). Over stdio (and SSE) a request
names no call: it takes the budget of the oldest call in flight and every call hears that
the server asked, the bound these tests document."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

import mcpbridge_sampling
import pytest
from mcp.types import ElicitRequestParams, ElicitResult
from mcpbridge_adapters.answering import MAX_REQUESTS
from mcpbridge_adapters.callbacks import CallbackContext, Callbacks
from mcpbridge_adapters.client import MultiServerMCPClient

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from tests.plugins.sampling.recording import RecordingChatModel
from tests.security import asking_server
from tests.servers import tenants

TRANSPORTS = ("in-process legacy", "http legacy", "stdio legacy")
MODULE = "tests.security.asking_server"


class Watched:
    """An interceptor recording what each call's observers hear, by tool call id, and when a
    call has reached the server (its first progress)."""

    def __init__(self) -> None:
        self.events: defaultdict[str | None, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
        self.arrived: defaultdict[str | None, asyncio.Event] = defaultdict(asyncio.Event)

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        def observer(event: str, data: Any) -> None:
            self.events[request.tool_call_id].append((event, dict(data)))
            if event == "progress":
                self.arrived[request.tool_call_id].set()

        return await handler(request.override(observers=(*request.observers, observer)))

    def asked(self, call_id: str) -> list[dict[str, Any]]:
        return [data for event, data in self.events[call_id] if event == "server.asked"]


async def bob_then_alice(bridge: MCPBridge, watched: Watched, alice: int, bob: int, **extra: Any) -> list[str]:
    """Bob's call starts and waits; Alice's asks `alice` times; then Bob's asks `bob` times.
    The texts of their answers, Alice's first."""
    bobs = asyncio.create_task(
        bridge.call_tool("t", "ask", {"who": "bob", "times": bob, "after": "alice", **extra}, tool_call_id="call-bob")
    )
    await asyncio.wait_for(watched.arrived["call-bob"].wait(), asking_server.WAIT_S)
    alices = await bridge.call_tool("t", "ask", {"who": "alice", "times": alice, **extra}, tool_call_id="call-alice")
    return [alices.content[0]["text"], (await bobs).content[0]["text"]]


def sampling(**settings: Any) -> dict[str, Any]:
    return {"sampling": {"model": RecordingChatModel(), "all_servers": True, **settings}}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_one_users_legacy_sampling_uses_only_their_own_calls_budget(transport: str) -> None:
    watched = Watched()
    with tenants.shared(transport, asking_server.build, MODULE) as config:
        async with MCPBridge(
            {"t": config},
            plugins=[mcpbridge_sampling],
            plugin_settings=sampling(max_requests=2),
            interceptors=[watched],
        ) as bridge:
            answers = await bob_then_alice(bridge, watched, alice=4, bob=2)
    if transport in tenants.TIED:
        assert answers == ["alice: answered, answered, refused, refused", "bob: answered, answered"]
    else:  # the requests name no call: Alice's took Bob's budget too, the oldest call's
        assert answers == ["alice: answered, answered, answered, answered", "bob: refused, refused"]


async def test_one_users_legacy_questions_use_only_their_own_calls_budget() -> None:
    settings = {
        "elicitation": {
            "on_elicitation": lambda server, params: {"action": "accept", "content": {"sure": True}},
            "max_rounds": 2,
        }
    }
    watched = Watched()
    with tenants.shared("in-process legacy", asking_server.build, MODULE) as config:
        async with MCPBridge(
            {"t": config}, plugins=["elicitation"], plugin_settings=settings, interceptors=[watched]
        ) as bridge:
            answers = await bob_then_alice(bridge, watched, alice=3, bob=2, person=True)
    assert answers == ["alice: answered, answered, refused", "bob: answered, answered"]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_server_asked_reaches_only_the_call_the_request_came_with(transport: str) -> None:
    watched = Watched()
    with tenants.shared(transport, asking_server.build, MODULE) as config:
        async with MCPBridge(
            {"t": config}, plugins=[mcpbridge_sampling], plugin_settings=sampling(), interceptors=[watched]
        ) as bridge:
            answers = await bob_then_alice(bridge, watched, alice=1, bob=0)
    assert answers == ["alice: answered", "bob: nothing asked"]
    assert watched.asked("call-alice") == [{"kinds": ["sampling"]}]
    # over stdio the request names no call: it may have been Bob's, so his answer is not his alone
    assert watched.asked("call-bob") == ([] if transport in tenants.TIED else [{"kinds": ["sampling"]}])


async def test_the_drop_ins_legacy_questions_use_only_their_own_calls_budget() -> None:
    """`on_elicitation` of a `MultiServerMCPClient` answers at most `MAX_REQUESTS` questions
    of each tool call: Alice's call asking more does not take Bob's."""
    bob_arrived = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None, context: CallbackContext) -> None:
        if message == "bob arrived":
            bob_arrived.set()

    async def on_elicitation(mcp_context: Any, params: ElicitRequestParams, context: CallbackContext) -> ElicitResult:
        return ElicitResult(action="accept", content={"sure": True})

    connection = {"transport": "in_process", "server": asking_server.build(), "mode": "legacy"}
    client = MultiServerMCPClient(
        {"t": connection}, callbacks=Callbacks(on_progress=on_progress, on_elicitation=on_elicitation), plugins=[]
    )
    try:
        ask = {tool.name: tool for tool in await client.get_tools()}["ask"]
        bobs = asyncio.create_task(ask.ainvoke({"who": "bob", "times": MAX_REQUESTS, "after": "alice", "person": True}))
        await asyncio.wait_for(bob_arrived.wait(), asking_server.WAIT_S)
        alices = await ask.ainvoke({"who": "alice", "times": MAX_REQUESTS + 2, "person": True})
        answers = [alices[0]["text"], (await bobs)[0]["text"]]
    finally:
        await client.aclose()
    assert answers == [
        "alice: " + ", ".join(["answered"] * MAX_REQUESTS + ["refused"] * 2),
        "bob: " + ", ".join(["answered"] * MAX_REQUESTS),
    ]
