"""Alice and Bob share one agent (one checkpointer, one store) and one bridge with one session
per server, on every transport: in random interleavings they look things up through the
cache, call a failing tool, answer a server's question, have the client's model sampled (on
the modern and the legacy protocol), run MCP tasks and approve, edit, reject or answer
destructive calls, each with their own runtime context (hence, over HTTP, their own
`x-user` header), threads and tool-call ids, and arguments quoting their name. Nothing of one
(a marker, an id, an argument, a result) may ever turn up in what the other sees: their
ToolMessages and artifacts, interrupts, custom stream (the events plugin), their calls'
observer events, or their cache entries (a hit answers only what that caller was served,
and another's call never makes their entry stale)."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcpbridge_approval
import mcpbridge_cache
import mcpbridge_elicitation
import mcpbridge_events
import mcpbridge_headers
import mcpbridge_sampling
import mcpbridge_tasks
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command, Interrupt
from mcpbridge_approval import create_approval_resume
from mcpbridge_elicitation import create_elicitation_resume

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import ScriptedChatModel, make_agent, serve_http, stdio_config
from tests.helpers import ROOT
from tests.security import tenant_servers

USERS = ("alice", "bob")
SERVERS = Path(tenant_servers.__file__)
TURNS = 100_000
"""Enough replies of the one reply function for every run of a test."""
_numbers = itertools.count()


def route(messages: list[BaseMessage]) -> AIMessage:
    """The agent's model: a user's message is the JSON of the one tool call to make, anything
    else (the call's ToolMessage) ends the run."""
    last = messages[-1]
    if not isinstance(last, HumanMessage):
        return AIMessage("Done.")
    call = json.loads(last.text)
    return AIMessage("", tool_calls=[{**call, "type": "tool_call"}])


def echo(messages: list[BaseMessage]) -> AIMessage:
    """The client's model, asked by servers: repeats the prompt, whoever it came from."""
    return AIMessage(f"echo of {messages[-1].text}")


@dataclass
class Seen:
    """What each user saw; as an interceptor, the events their calls' observers hear."""

    of: defaultdict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        assert request.runtime is not None
        user = request.runtime.context["user"]

        def observer(event: str, data: Any) -> None:
            self.of[user].append(("event", event, dict(data)))

        return await handler(request.override(observers=(*request.observers, observer)))


@dataclass
class Op:
    """One tool call of one user, made by one agent run on a thread of its own and resumed
    until it ends; `choice` is the answer to its question (decision, elicitation action)."""

    user: str
    kind: str
    topic: str
    choice: str
    call_id: str
    n: int = field(default_factory=lambda: next(_numbers))
    pending: list[Interrupt] = field(default_factory=list)

    @property
    def marker(self) -> str:
        return f"{self.user}-m{self.n}"

    @property
    def call(self) -> dict[str, Any]:
        args = {"topic": self.topic} if self.kind == "desk_lookup" else {"marker": self.marker}
        if self.kind.endswith("summarize"):
            args = {"text": self.marker}
        return {"name": self.kind, "args": args, "id": self.call_id}

    @property
    def config(self) -> dict[str, Any]:
        return {"configurable": {"thread_id": f"{self.user}-thread-{self.n}"}}

    def answer(self) -> dict[str, Any]:
        """The resume value of the pending interrupts: the user's own content in every answer."""
        if self.kind == "desk_confirm":
            [question] = self.pending
            reply = {"action": "accept", "content": {"note": f"{self.marker}-note"}}
            return create_elicitation_resume(
                question, {"note": reply if self.choice == "accept" else {"action": "decline"}}
            )
        decisions: dict[str, dict[str, Any]] = {
            "approve": {"type": "approve"},
            "edit": {"type": "edit", "edited_action": {"args": {"marker": f"{self.marker}-edited"}}},
            "reject": {"type": "reject", "message": f"no to {self.marker}"},
            "respond": {"type": "respond", "message": f"instead of {self.marker}"},
        }
        return create_approval_resume(self.pending, decisions[self.choice])

    def expected(self, me: str) -> str:
        """What the call's ToolMessage says, quoting this user's marker (and, over HTTP, the
        `x-user` header the server got: `me`)."""
        marker = self.marker
        if self.kind == "desk_confirm":
            answer = "accept {'note': '" + marker + "-note'}" if self.choice == "accept" else "decline None"
            return f"confirmed {marker} (confirming {marker}) for {me}: {answer}"
        if self.kind == "desk_grant":
            return {
                "approve": f"granted {marker} for {me}",
                "edit": f"granted {marker}-edited for {me}",
                "reject": f"no to {marker}",
                "respond": f"instead of {marker}",
            }[self.choice]
        if self.kind.endswith("_summarize"):
            return f"summary of {marker} for {me}: echo of Summarize: {marker}"
        return {"desk_fail": f"cannot do {marker} for {me}", "jobs_job": f"job done for {marker}"}[self.kind]


@dataclass
class Desk:
    """One user's view of the cache: the answer each topic's entry holds, as the model of
    which lookups must be hits. A call of another desk tool that reaches the cache (a write)
    makes that user's entries stale, and only theirs."""

    http: bool
    cached: dict[str, str] = field(default_factory=dict)

    def check(self, op: Op, message: ToolMessage) -> None:
        text, artifact = str(message.text), message.artifact or []
        me = op.user if self.http else "nobody"
        if op.kind != "desk_lookup":
            reached = op.kind.startswith("desk_") and not (
                op.kind == "desk_grant" and op.choice in ("reject", "respond")
            )
            if reached:
                self.cached.clear()
            assert op.expected(me) in text, (op, text)
            failed = op.kind == "desk_fail" or (op.kind, op.choice) == ("desk_grant", "reject")
            assert (message.status == "error") == failed, (op, message)
            return
        [entry] = [a for a in artifact if a.get("type") == mcpbridge_cache.ARTIFACT_TYPE]
        assert entry["hit"] == (op.topic in self.cached), (op, self.cached, entry)
        if entry["hit"]:
            assert text == self.cached[op.topic], (op, text, self.cached)
        else:
            assert text.startswith(f"{op.topic} #"), (op, text)
            assert text.endswith(f" for {me}"), (op, text)
            self.cached[op.topic] = text


@dataclass
class Shared:
    """One bridge, one agent, and what each user saw in the current example."""

    bridge: MCPBridge
    agent: Any
    store: InMemoryStore
    seen: Seen
    http: bool
    desks: dict[str, Desk] = field(default_factory=dict)

    async def step(self, op: Op) -> bool:
        """Run (or resume) `op`'s run once; True when its call ended."""
        value: Any = Command(resume=op.answer()) if op.pending else {"messages": [HumanMessage(json.dumps(op.call))]}
        seen = self.seen.of[op.user]
        op.pending = []
        stream = self.agent.astream(value, op.config, stream_mode=["custom", "updates"], context={"user": op.user})
        async for mode, chunk in stream:
            if mode == "custom":
                seen.append(("stream", chunk))
            elif "__interrupt__" in chunk:
                op.pending += chunk["__interrupt__"]
        if op.pending:
            asked = [question.value for question in op.pending]
            assert [value["tool_call_id"] for value in asked] == [op.call_id], asked
            seen.append(("interrupt", asked))
            return False
        state = await self.agent.aget_state(op.config)
        [message] = [message for message in state.values["messages"] if isinstance(message, ToolMessage)]
        assert message.tool_call_id == op.call_id, message
        seen.append(("message", message.tool_call_id, message.content, message.artifact, message.status))
        self.desks[op.user].check(op, message)
        return True

    async def play(self, ops: dict[str, list[Op]], schedule: list[tuple[str, ...]]) -> None:
        """Advance the users named by each schedule entry one run each (together when two),
        then finish what is left, both at a time."""
        queues = {user: deque(ops[user]) for user in USERS}

        async def advance(user: str) -> None:
            if queues[user] and await self.step(queues[user][0]):
                queues[user].popleft()

        async def together(users: tuple[str, ...]) -> None:
            async with asyncio.TaskGroup() as group:  # a failure stops the other user's run too
                for user in users:
                    group.create_task(advance(user))

        for users in schedule:
            await together(users)
        while any(queues.values()):
            await together(USERS)


@contextmanager
def servers(transport: str) -> Iterator[dict[str, Any]]:
    """`desk` (protocol as negotiated: modern) and `jobs` (legacy), served on `transport`."""
    if transport == "in-process":
        yield {"desk": {"server": tenant_servers.build_desk()}, "jobs": {"server": tenant_servers.build_jobs()}}
    elif transport == "stdio":
        yield {name: stdio_config(SERVERS, name, cwd=str(ROOT)) for name in ("desk", "jobs")}
    else:
        served = [serve_http(build()) for build in (tenant_servers.build_desk, tenant_servers.build_jobs)]
        try:
            yield {"desk": {"url": served[0].url}, "jobs": {"url": served[1].url}}
        finally:
            for server in served:
                server.stop()


@asynccontextmanager
async def opened(transport: str) -> AsyncIterator[Shared]:
    """One bridge (one session per server) and one agent over `transport`."""
    http = transport == "http"
    plugins: list[Any] = [mcpbridge_events, mcpbridge_approval, mcpbridge_cache, mcpbridge_elicitation]
    plugins += [mcpbridge_sampling, mcpbridge_tasks] + ([mcpbridge_headers] if http else [])
    options: dict[str, Any] = {
        "cache": {"rules": [{"server": "desk", "tool": "lookup"}], "partition_by": ["context.user"]},
        "sampling": {"model": ScriptedChatModel(turns=[echo] * TURNS), "servers": ["desk", "jobs"]},
        "tasks": {"poll_min": 0.02, "poll_max": 0.1},
    }
    if http:
        options["headers"] = {"servers": {"desk": {"x-user": "context.user"}, "jobs": {"x-user": "context.user"}}}
    seen = Seen()
    with servers(transport) as config:
        config["jobs"]["mode"] = "legacy"  # MCP tasks are a 2025-11-25 feature
        async with MCPBridge(
            config, plugins=plugins, plugin_settings=options, interceptors=[seen], tool_name_prefix=True
        ) as bridge:
            store = InMemoryStore()
            agent = make_agent(ScriptedChatModel(turns=[route] * TURNS), await bridge.list_tools(), store=store)
            yield Shared(bridge, agent, store, seen, http)


@pytest.fixture(params=["in-process", "stdio", "http"])
async def shared(request: pytest.FixtureRequest) -> AsyncIterator[Shared]:
    """For every example on one transport."""
    async with opened(request.param) as bridged:
        yield bridged


KINDS = ("desk_lookup", "desk_fail", "desk_confirm", "desk_summarize", "desk_grant", "jobs_job", "jobs_summarize")
_op = st.tuples(
    st.sampled_from(KINDS), st.sampled_from(["t0", "t1"]), st.sampled_from(["approve", "edit", "reject", "respond"])
)
_ops = st.lists(_op, min_size=2, max_size=6)
_schedule = st.lists(st.sampled_from([("alice",), ("bob",), ("alice", "bob")]), min_size=2, max_size=14)


def ops_of(user: str, drawn: list[tuple[str, str, str]], same_ids: bool) -> list[Op]:
    """The drawn calls, with tool-call ids of their own, or numbered alike for both users as
    some models do (`call-0`, `call-1`, ...); an elicitation's answer is accepted unless its
    draw says reject."""
    return [
        Op(
            user,
            kind,
            topic,
            ("decline" if choice == "reject" else "accept") if kind == "desk_confirm" else choice,
            f"call-{i}" if same_ids else f"{user}-call-{i}",
        )
        for i, (kind, topic, choice) in enumerate(drawn)
    ]


@settings(
    max_examples=8,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(alice=_ops, bob=_ops, schedule=_schedule, same_ids=st.booleans())
async def test_nothing_of_one_user_reaches_the_other(
    shared: Shared,
    alice: list[tuple[str, str, str]],
    bob: list[tuple[str, str, str]],
    schedule: list[tuple[str, ...]],
    same_ids: bool,
) -> None:
    shared.seen.of.clear()
    shared.desks = {user: Desk(shared.http) for user in USERS}
    await mcpbridge_cache.clear(shared.bridge)  # the examples share the bridge, not its entries
    ops = {"alice": ops_of("alice", alice, same_ids), "bob": ops_of("bob", bob, same_ids)}
    await shared.play(ops, schedule)
    assert await shared.store.asearch(("mcpbridge_tasks",)) == []  # every task's id forgotten with its call
    for user in USERS:
        other = next(name for name in USERS if name != user)
        kinds = {entry[0] for entry in shared.seen.of[user]}
        assert {"message", "stream"} <= kinds, kinds
        saw = json.dumps(shared.seen.of[user], default=str)
        assert other not in saw, f"{user} saw something of {other}: {saw}"
