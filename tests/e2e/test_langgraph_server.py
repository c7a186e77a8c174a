"""examples/langgraph-server under LangGraph's own server (`langgraph dev`, the in-memory
runtime of langgraph-cli[inmem]), driven over HTTP with the LangGraph SDK as a front end
would: a tool call, an approval interrupt and its resume, the events plugin's lifecycle
events on the `custom` stream, and the bridge's lifetime (one MCP session per worker
process, closed when the server shuts down).

The MCP server is the example's own server.py, served from this process over streamable
HTTP in the legacy protocol, whose server-side sessions show the lifetime. `langgraph dev`
starts once for the module (several seconds) from a copy of the example, so its dev
persistence (.langgraph_api/) stays out of the repository; the last test stops it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from mcpbridge_approval import APPROVE, create_approval_resume
from mcpbridge_events import EVENT_TYPE

from mcpbridge.testing import serve_http
from tests.helpers import ROOT
from tests.helpers.langgraph_dev import Server, langgraph_dev
from tests.servers.session_log import SessionLog

EXAMPLE = ROOT / "examples" / "langgraph-server"


@dataclass
class Notes:
    """The example's MCP server, served from this process."""

    module: ModuleType
    sessions: SessionLog
    url: str

    def calls(self, tool: str) -> int:
        return int(self.module.CALLS[tool])

    @property
    def notes(self) -> dict[str, str]:
        return dict(self.module.NOTES)


@pytest.fixture(scope="module")
def notes() -> Iterator[Notes]:
    spec = importlib.util.spec_from_file_location("langgraph_example_notes_server", EXAMPLE / "server.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sessions = SessionLog(module.build().streamable_http_app())
    served = serve_http(sessions)
    try:
        yield Notes(module, sessions, served.url)
    finally:
        served.stop()


@pytest.fixture(scope="module")
def server(notes: Notes, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"NOTES_MCP_URL": notes.url, "NOTES_MCP_MODE": "legacy", "AGENT_MODEL": "offline"}
    with langgraph_dev(EXAMPLE, tmp_path_factory.mktemp("langgraph-server") / "app", env, stop_s=20) as running:
        yield running


@pytest.fixture
def client(server: Server) -> LangGraphClient:
    return get_client(url=server.url)


def user(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


async def ask(client: LangGraphClient, text: str, thread_id: str | None = None) -> tuple[str, dict[str, Any]]:
    """One run to its end (or its interrupt) on a new thread; its thread id and final values."""
    if thread_id is None:
        thread_id = (await client.threads.create())["thread_id"]
    values = await client.runs.wait(thread_id, "agent", input=user(text))
    assert isinstance(values, dict), values
    return thread_id, values


async def pending(client: LangGraphClient, thread_id: str) -> list[Any]:
    """The thread's open interrupts, as the SDK returns them (`{"id", "value"}` dicts, which
    the approval helper takes as they are)."""
    state = await client.threads.get_state(thread_id)
    return list(state["interrupts"])


async def resume(client: LangGraphClient, thread_id: str, value: Any) -> dict[str, Any]:
    values = await client.runs.wait(thread_id, "agent", command={"resume": value})
    assert isinstance(values, dict), values
    return values


def last_text(values: dict[str, Any]) -> str:
    return str(values["messages"][-1]["content"])


async def test_a_tool_call_goes_through_the_bridge(server: Server, notes: Notes, client: LangGraphClient) -> None:
    before = notes.calls("read_note")
    _, values = await ask(client, 'read_note {"title": "todo"}')
    assert last_text(values) == "read_note answered: water the plants"
    [tool_message] = [m for m in values["messages"] if m["type"] == "tool"]
    assert tool_message["status"] == "success"
    assert notes.calls("read_note") == before + 1


async def test_an_approved_call_runs_once_after_the_resume(
    server: Server, notes: Notes, client: LangGraphClient
) -> None:
    before = notes.calls("delete_note")
    thread_id, _ = await ask(client, 'delete_note {"title": "groceries"}')
    [interrupt] = await pending(client, thread_id)
    assert interrupt["value"]["type"] == "mcp_approval"
    assert (interrupt["value"]["server_name"], interrupt["value"]["name"]) == ("notes", "delete_note")
    assert interrupt["value"]["arguments"] == {"title": "groceries"}
    assert notes.calls("delete_note") == before  # paused before the server was called

    values = await resume(client, thread_id, create_approval_resume([interrupt], APPROVE))
    assert last_text(values) == "delete_note answered: deleted groceries"
    assert notes.calls("delete_note") == before + 1
    assert "groceries" not in notes.notes
    assert await pending(client, thread_id) == []


async def test_a_rejected_call_never_reaches_the_server(server: Server, notes: Notes, client: LangGraphClient) -> None:
    before = notes.calls("delete_note")
    thread_id, _ = await ask(client, 'delete_note {"title": "ideas"}')
    reject = {"type": "reject", "message": "keep my ideas"}
    values = await resume(client, thread_id, create_approval_resume(await pending(client, thread_id), reject))
    [tool_message] = [m for m in values["messages"] if m["type"] == "tool"]
    assert "keep my ideas" in str(tool_message["content"])
    assert notes.calls("delete_note") == before
    assert "ideas" in notes.notes


async def test_lifecycle_events_reach_the_custom_stream(server: Server, client: LangGraphClient) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    events: list[dict[str, Any]] = []
    asked: list[str] = []
    async for part in client.runs.stream(
        thread_id, "agent", input=user('read_note {"title": "todo"}'), stream_mode=["custom", "updates"]
    ):
        if part.event == "custom" and part.data.get("type") == EVENT_TYPE:
            events.append(part.data)
        if part.event == "updates" and "model" in part.data:
            asked += [call["id"] for m in part.data["model"]["messages"] for call in m.get("tool_calls", [])]
    assert [e["event"] for e in events] == ["started", "finished"]
    started, finished = events
    assert started["tool_call_id"] == finished["tool_call_id"] == asked[0]
    assert (started["server_name"], started["name"], started["input"]) == ("notes", "read_note", {"title": "todo"})
    assert "water the plants" in str(finished["output"])


async def test_a_paused_call_streams_its_approval_and_interruption(server: Server, client: LangGraphClient) -> None:
    thread_id = (await client.threads.create())["thread_id"]
    events = [
        part.data
        async for part in client.runs.stream(
            thread_id, "agent", input=user('delete_note {"title": "todo"}'), stream_mode="custom"
        )
        if part.event == "custom" and part.data.get("type") == EVENT_TYPE
    ]
    assert [(e["event"], e.get("update")) for e in events] == [
        ("started", None),
        ("update", "approval.requested"),
        ("interrupted", None),
    ]


async def test_runs_share_one_session_per_worker(server: Server, notes: Notes, client: LangGraphClient) -> None:
    before = notes.calls("list_notes")
    runs = await asyncio.gather(*(ask(client, "list_notes") for _ in range(8)))
    assert all(last_text(values).startswith("list_notes answered:") for _, values in runs)
    assert notes.calls("list_notes") == before + 8
    assert len(notes.sessions.opened) == 1, notes.sessions.opened  # every run of every test so far
    assert notes.sessions.closed == []


async def test_a_tool_the_server_adds_reaches_the_running_agent(
    server: Server, notes: Notes, client: LangGraphClient
) -> None:
    """The graph was built once, at import, before the tool existed: the live catalogue gives
    it to the next model call after the server announced it."""
    _, values = await ask(client, 'archive_note {"title": "todo"}')
    assert "'archive_note' is not a tool offered to this agent" in str(values["messages"][-2]["content"])
    _, values = await ask(client, "open_archive")
    assert last_text(values).startswith("open_archive answered: the archive is open")
    _, values = await ask(client, 'archive_note {"title": "todo"}')
    assert last_text(values) == "archive_note answered: archived todo"
    assert notes.calls("archive_note") == 1


def test_the_servers_own_logs_still_format(server: Server) -> None:
    """structlog's formatter builds records with `logging.makeLogRecord()` (no logger name):
    the bridge's log redaction must not turn each of them into a logging error."""
    assert "--- Logging error ---" not in server.output()


def test_shutdown_closes_the_session(server: Server, notes: Notes) -> None:
    """Last: stops the server. SIGTERM (what a container runtime sends) runs the lifespan of
    the example's app, which closes the bridge: the MCP server sees its one session ended."""
    [session] = notes.sessions.opened
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=30) in (0, -signal.SIGTERM), server.output()[-3000:]  # uvicorn re-raises it
    assert notes.sessions.closed == [session]
