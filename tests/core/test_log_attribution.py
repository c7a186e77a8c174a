"""A server's notification reaches a call only when the protocol ties it to that call: two
users' calls in flight together on one shared session each hear their own log lines where
the message came with its request (streamable HTTP, in-process), none where nothing says
whose it is (stdio, SSE: only the `mcpbridge.server.<name>` logger has them), their own
progress everywhere (its token names the call), and the log lines that name the MCP task
they follow. Real servers on every transport, both eras."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Any

import mcpbridge_tasks
import pytest

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from tests.servers import task_logs, tenants

USERS = ("alice", "bob")


class Heard:
    """An interceptor recording what each call's observers hear, by tool call id."""

    def __init__(self) -> None:
        self.events: defaultdict[str | None, list[tuple[str, dict[str, Any]]]] = defaultdict(list)

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        def observer(event: str, data: Any) -> None:
            self.events[request.tool_call_id].append((event, dict(data)))

        return await handler(request.override(observers=(*request.observers, observer)))

    def texts(self, call_id: str, event: str, key: str) -> list[Any]:
        return [data[key] for heard, data in self.events[call_id] if heard == event]


async def call_together(bridge: MCPBridge, round_id: str, **work: Any) -> list[Any]:
    """Alice's and Bob's calls of `work`, in flight together (the server makes them meet)."""
    calls = [
        bridge.call_tool(
            "t", "work", {"who": who, "round": round_id, "together": len(USERS), **work}, tool_call_id=f"call-{who}"
        )
        for who in USERS
    ]
    return await asyncio.gather(*calls)


@pytest.mark.parametrize("transport", tenants.TRANSPORTS)
async def test_each_call_hears_only_what_came_with_it(transport: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mcpbridge.server.t")
    heard = Heard()
    with tenants.shared(transport) as config:
        async with MCPBridge({"t": config}, plugins=[], interceptors=[heard]) as bridge:
            answers = await call_together(bridge, "r1", logs=2, progress=2)
    assert [answer.content[0]["text"] for answer in answers] == [f"result of {who}" for who in USERS]
    for who in USERS:
        own = [f"log 0 of {who}", f"log 1 of {who}"]
        assert heard.texts(f"call-{who}", "log", "data") == (own if transport in tenants.TIED else [])
        assert heard.texts(f"call-{who}", "progress", "message") == [f"progress 0 of {who}", f"progress 1 of {who}"]
    logged = sorted(record.getMessage() for record in caplog.records if hasattr(record, "mcp_level"))
    assert logged == sorted(f"log {i} of {who}" for who in USERS for i in range(2))  # the server's logger hears all


async def test_progress_and_logs_of_a_call_without_observers_reach_no_other_call() -> None:
    """Bob's call has no observers (nobody listens to it): what comes with it stays unheard,
    it does not go to Alice's call instead."""
    heard = Heard()

    async def only_alice(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await (heard(request, handler) if request.args["who"] == "alice" else handler(request))

    with tenants.shared("http legacy") as config:
        async with MCPBridge({"t": config}, plugins=[], interceptors=[only_alice]) as bridge:
            await call_together(bridge, "r1", logs=3, progress=3)
    assert set(heard.events) == {"call-alice"}
    texts = [str(data) for _, data in heard.events["call-alice"]]
    assert texts
    assert not [text for text in texts if "bob" in text]


@pytest.mark.parametrize("transport", tenants.TRANSPORTS)
async def test_progress_with_another_calls_token_on_a_calls_own_stream_reaches_no_one(transport: str) -> None:
    """A server answering Alice's call sends progress with Bob's token. Where the message came
    with Alice's request, it is neither Bob's (it did not come with his) nor Alice's (the token
    is not hers); on stdio and SSE the token is all there is, so it is Bob's."""
    heard = Heard()
    with tenants.shared(transport) as config:
        async with MCPBridge({"t": config}, plugins=[], interceptors=[heard]) as bridge:
            calls = [
                bridge.call_tool("t", "cross", {"who": who, "round": "r1"}, tool_call_id=f"call-{who}") for who in USERS
            ]
            await asyncio.gather(*calls)
    for who, other in (USERS, USERS[::-1]):
        expected = [] if transport in tenants.TIED else [f"progress of {other} sent as {who}'s"]
        assert heard.texts(f"call-{who}", "progress", "message") == expected


@pytest.mark.parametrize("crossed", [False, True], ids=["own task", "other's task"])
@pytest.mark.parametrize("transport", task_logs.TRANSPORTS)
async def test_a_log_message_naming_a_task_reaches_the_call_following_it(transport: str, crossed: bool) -> None:
    """A message naming an MCP task (`_meta` related-task) is the call's that follows the task,
    on every transport. One that names another call's task on a call's own stream reaches
    no one where it came with a request; elsewhere the name is all there is."""
    heard = Heard()
    with task_logs.shared(transport) as config:
        async with MCPBridge({"t": config}, plugins=[mcpbridge_tasks], interceptors=[heard]) as bridge:
            calls = [
                bridge.call_tool(
                    "t",
                    "chores",
                    {"who": who, "round": "r1", "about": other if crossed else who},
                    tool_call_id=f"call-{who}",
                )
                for who, other in (USERS, USERS[::-1])
            ]
            answers = await asyncio.gather(*calls)
    assert [answer.content[0]["text"] for answer in answers] == [f"chores of {who} done" for who in USERS]
    for who, other in (USERS, USERS[::-1]):
        if not crossed:
            expected = [f"task log of {who} about {who}"]
        else:
            expected = [] if transport in task_logs.TIED else [f"task log of {other} about {who}"]
        assert heard.texts(f"call-{who}", "log", "data") == expected
