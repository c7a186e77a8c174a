"""Two users share one session to one server, on every transport: Alice and Bob call it with
their own headers (where the transport has them), runtime context and tool call ids, in random
interleavings of calls that log, report progress and fail, alone or in flight together.
Nothing of one (a text naming them, an id, an argument, a result) may ever turn up in what
the other sees: their ToolMessages and artifacts, their custom stream (the events plugin),
their calls' observer events and their OpenTelemetry spans. A server's log message went to
every call in flight on the session, so Alice's lines reached Bob's stream and span."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import mcpbridge_events
import mcpbridge_otel
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings, strategies as st
from langchain.tools import ToolRuntime
from opentelemetry.sdk.trace import ReadableSpan

from mcpbridge import MCPBridge, MCPTool, ToolCallHandler, ToolCallRequest
from tests.helpers.telemetry import Telemetry, telemetry, telemetry_session
from tests.servers import tenants

__all__ = ["telemetry", "telemetry_session"]

USERS = ("alice", "bob")
TOOL_CALL_ID = "gen_ai.tool.call.id"
_numbers = itertools.count()


@dataclass
class Seen:
    """Everything each user saw, by user."""

    of: defaultdict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))

    def owner(self, call_id: object) -> str:
        return str(call_id).split("-", 1)[0]

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        """An interceptor: the user's headers on HTTP, and the events its call's observers hear."""
        user = self.owner(request.tool_call_id)
        if request.server_name == "url":
            request = request.override(headers={"x-user": user})

        def observer(event: str, data: Any) -> None:
            self.of[user].append(("event", event, dict(data)))

        return await handler(request.override(observers=(*request.observers, observer)))


@dataclass(frozen=True)
class Call:
    user: str
    round_id: str
    together: int
    logs: int
    progress: int
    fail: bool


_spec = st.fixed_dictionaries({"logs": st.integers(0, 3), "progress": st.integers(0, 2), "fail": st.booleans()})
_rounds = st.lists(
    st.tuples(st.sampled_from([("alice",), ("bob",), ("alice", "bob")]), _spec, _spec), min_size=1, max_size=3
)


def calls_of(rounds: list[tuple[tuple[str, ...], dict[str, Any], dict[str, Any]]]) -> list[Call]:
    """The calls of each round (each round's calls meet at the server before they log)."""
    calls = []
    for users, *specs in rounds:
        round_id = f"r{next(_numbers)}"
        calls += [Call(user, round_id, len(users), **spec) for user, spec in zip(users, specs, strict=False)]
    return calls


async def invoke(tool: MCPTool, call: Call, seen: Seen) -> None:
    call_id = f"{call.user}-{next(_numbers)}"
    runtime = ToolRuntime(
        state={},
        context={"user": call.user},
        config={},
        stream_writer=lambda chunk: seen.of[call.user].append(("stream", chunk)),
        tool_call_id=call_id,
        store=None,
    )
    args = {"who": call.user, "round": call.round_id, "together": call.together, "logs": call.logs}
    args |= {"progress": call.progress, "fail": call.fail, "runtime": runtime}
    message = await tool.ainvoke({"type": "tool_call", "name": "work", "args": args, "id": call_id})
    seen.of[call.user].append(("message", message.content, message.artifact, message.status))
    assert (message.status == "error") == call.fail
    assert f"of {call.user}" in str(message.content)


def spans_by_user(spans: list[ReadableSpan], seen: Seen) -> None:
    """Each span goes to the user of the tool call it belongs to (its own `gen_ai.tool.call.id`,
    or its nearest ancestor's: the SDK's spans under the call's); the rest are no call's."""
    by_id = {span.context.span_id: span for span in spans if span.context is not None}
    for span in spans:
        ancestor: ReadableSpan | None = span
        while ancestor is not None and TOOL_CALL_ID not in (ancestor.attributes or {}):
            ancestor = by_id.get(ancestor.parent.span_id) if ancestor.parent is not None else None
        if ancestor is not None:
            events = [(event.name, dict(event.attributes or {})) for event in span.events]
            user = seen.owner((ancestor.attributes or {})[TOOL_CALL_ID])
            seen.of[user].append(("span", span.name, dict(span.attributes or {}), events))


@pytest.fixture(params=tenants.TRANSPORTS)
async def shared(request: pytest.FixtureRequest) -> AsyncIterator[tuple[MCPTool, Seen]]:
    """One bridge with one session to the server (the events and otel plugins on), for every
    example on one transport."""
    seen = Seen()
    with tenants.shared(request.param) as config:
        name = "url" if "url" in config else "local"
        async with MCPBridge(
            {name: config},
            plugins=[mcpbridge_events, mcpbridge_otel],
            plugin_settings={"otel": {"record_content": True}},
            interceptors=[seen],
        ) as bridge:
            [tool] = [tool for tool in await bridge.list_tools() if tool.name == "work"]
            yield tool, seen


@settings(
    max_examples=4,
    deadline=None,
    database=None,
    phases=(Phase.explicit, Phase.generate),  # examples are small: no shrinking, a failure is quick
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rounds=_rounds, order=st.integers(0, 2**16))
@example(
    rounds=[(("alice", "bob"), {"logs": 2, "progress": 1, "fail": False}, {"logs": 1, "progress": 2, "fail": True})],
    order=0,
)
async def test_nothing_of_one_user_reaches_the_other(
    shared: tuple[MCPTool, Seen], telemetry: Telemetry, rounds: Any, order: int
) -> None:
    tool, seen = shared
    seen.of.clear()
    telemetry.exporter.clear()
    calls = calls_of(rounds)
    random.Random(order).shuffle(calls)  # the order the calls start in
    await asyncio.gather(*(invoke(tool, call, seen) for call in calls))
    spans_by_user(telemetry.spans(), seen)
    for user in USERS:
        other = next(name for name in USERS if name != user)
        mine = [call for call in calls if call.user == user]
        kinds = {entry[0] for entry in seen.of[user]}  # what each user sees is really looked at
        assert kinds >= ({"message", "stream", "span"} if mine else set())
        assert "event" in kinds or not any(call.progress for call in mine)  # progress is theirs everywhere
        saw = json.dumps(seen.of[user], default=str)
        assert other not in saw, f"{user} saw something of {other}: {saw}"
