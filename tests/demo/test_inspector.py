"""The inspector's server without a browser: SSE carries every change of every call as a
delta (a late page, or one left behind, first gets a snapshot), the page is self-contained,
foreign hosts and cross-site posts are refused, the CLI demo runs."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import mcpbridge_events
import pytest
from mcpbridge_demo.board import CHANGE_LOG_SIZE, CallBoard
from mcpbridge_demo.inspector import Inspector, serve
from mcpbridge_events import EVENT_TYPE, ToolCallAssembler

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from tests.helpers.waiting import PATIENCE
from tests.plugins.events.events_support import USER, agent, ask, build_server

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


def read_events(
    url: str,
    until: int,
    into: list[tuple[str, Any]],
    connected: threading.Event | None = None,
    all_running: threading.Event | None = None,
) -> None:
    """Collect SSE events from `url` until `until` calls have settled (run in a thread);
    `connected` is set once the page's greeting arrived, `all_running` once `until` calls
    were shown running."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=PATIENCE)
    connection.request("GET", "/events")
    response = connection.getresponse()
    kind = None
    settled: set[str] = set()
    running: set[str] = set()
    while len(settled) < until:
        line = response.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
            into.append((kind, data))
            if connected is not None:
                connected.set()
            if kind == "call" and data["status"] != "running":
                settled.add(data["callId"])
            elif kind == "call":
                running.add(data["callId"])
                if all_running is not None and len(running) >= until:
                    all_running.set()
    connection.close()


def request(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
    connection.request(method, parts.path or "/", headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, dict(response.getheaders()), body


async def test_the_event_stream_shows_each_call_running_then_settled() -> None:
    events: list[tuple[str, Any]] = []
    with serve(port=0) as inspector:
        connected, all_running = threading.Event(), threading.Event()
        reader = threading.Thread(
            target=read_events, args=(inspector.url, 3, events, connected, all_running), daemon=True
        )
        reader.start()
        # the page is connected before the run starts, as a watching user would be
        assert await asyncio.to_thread(connected.wait, PATIENCE)

        async def until_shown_running(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            # The page shows a call's latest state: keep the answers back until it has drawn
            # every call running, as it does when tools take a moment.
            result = await handler(request)
            await asyncio.to_thread(all_running.wait, PATIENCE)
            return result

        async with MCPBridge(
            {"weather": build_server()}, plugins=[mcpbridge_events], interceptors=[until_shown_running]
        ) as bridge:
            graph = agent(
                await bridge.list_tools(),
                ask(("get_forecast", {"city": "Oslo"}), ("add", {"a": 2, "b": 3}), ("divide", {"a": 1, "b": 0})),
            )
            config = {"configurable": {"thread_id": "t1"}}
            async for _ in inspector.track(graph.astream(USER, config, stream_mode=["updates", "custom"])):
                pass
        reader.join(timeout=PATIENCE)
        assert not reader.is_alive()
        snapshot = json.loads((await asyncio.to_thread(request, inspector.url + "calls"))[2])
    assert events[0] == ("hello", {"title": "mcpbridge inspector", "canRun": False})
    statuses: dict[str, list[str]] = {}
    for kind, data in events[1:]:
        assert kind == "call"
        statuses.setdefault(data["callId"], []).append(data["status"])
    for call_id, seen in statuses.items():
        assert seen[0] == "running", call_id
    assert statuses["call-1"][-1] == "finished"
    assert statuses["call-3"][-1] == "error"
    assert [(c["callId"], c["status"]) for c in snapshot] == [
        ("call-1", "finished"),
        ("call-2", "finished"),
        ("call-3", "error"),
    ]


def test_a_late_page_gets_every_call_in_order() -> None:
    from mcpbridge_events import AssembledToolCall

    with serve(port=0) as inspector:
        first = AssembledToolCall(call_id="a", name="add")
        inspector.publish(first)
        inspector.publish(AssembledToolCall(call_id="b", name="divide", status="error", error="division by zero"))
        first.status = "finished"
        inspector.publish(first)  # a later change must not reorder the cards
        events: list[tuple[str, Any]] = []
        read_events(inspector.url, 2, events)
    assert [(d["callId"], d["status"]) for k, d in events if k == "call"] == [("a", "finished"), ("b", "error")]


def lifecycle_event(call_id: str, event: str, **data: Any) -> dict[str, Any]:
    return {"type": EVENT_TYPE, "event": event, "tool_call_id": call_id, **data}


def log_line(call_id: str, text: str) -> dict[str, Any]:
    return lifecycle_event(call_id, "update", update="log", data={"level": "info", "data": text})


def next_events(response: http.client.HTTPResponse, count: int) -> list[tuple[str, Any]]:
    """The next `count` events of an open SSE response."""
    events: list[tuple[str, Any]] = []
    kind = ""
    while len(events) < count:
        line = response.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            events.append((kind, json.loads(line[6:])))
    return events


def test_a_late_page_gets_a_snapshot_then_one_delta_per_change() -> None:
    with serve(port=0, assembler=ToolCallAssembler(max_updates_per_call=3)) as inspector:
        inspector.feed(lifecycle_event("a", "started", display_name="build"))
        for line in range(5):
            inspector.feed(log_line("a", f"line {line}"))
        parts = urlsplit(inspector.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        connection.request("GET", "/events")
        response = connection.getresponse()
        (_, hello), (kind, snapshot) = next_events(response, 2)
        assert (hello["title"], kind, snapshot["callId"], snapshot["status"]) == (
            "mcpbridge inspector",
            "call",
            "a",
            "running",
        )
        assert [u["data"] for u in snapshot["updates"]] == ["line 2", "line 3", "line 4"]
        assert snapshot["updatesDropped"] == 2

        inspector.feed(log_line("a", "line 5"))
        inspector.feed(lifecycle_event("a", "finished", output="ok"))
        (kind, delta), (then, fields) = next_events(response, 2)
        connection.close()
    assert (kind, delta["callId"], delta["index"], delta["dropped"]) == ("update", "a", 5, 3)
    assert delta["update"] == {"update": "log", "level": "info", "data": "line 5"}
    assert (then, fields["status"], fields["output"]) == ("call", "finished", "ok")
    assert "updates" not in fields, "a change of fields does not resend the updates"


def test_a_page_left_behind_by_the_change_log_gets_a_fresh_snapshot() -> None:
    assembler, board = ToolCallAssembler(max_updates_per_call=2), CallBoard()
    [call] = assembler.feed(lifecycle_event("a", "started", display_name="build"))
    board.publish(call)
    seen, _ = board.since(0, timeout=0)
    for line in range(CHANGE_LOG_SIZE + 1):
        board.publish(assembler.feed(log_line("a", f"line {line}"))[0])
    seen, [(kind, payload)] = board.since(seen, timeout=0)
    snapshot = json.loads(payload)
    assert (kind, [u["data"] for u in snapshot["updates"]]) == (
        "call",
        [f"line {CHANGE_LOG_SIZE - 1}", f"line {CHANGE_LOG_SIZE}"],
    )
    assert snapshot["updatesDropped"] == CHANGE_LOG_SIZE - 1
    board.publish(assembler.feed(log_line("a", "one more"))[0])
    assert [event for event, _ in board.since(seen, timeout=0)[1]] == ["update"]


def test_the_page_is_self_contained_and_locked_down() -> None:
    with serve(port=0) as inspector:
        status, headers, page = request(inspector.url)
        assert status == 200
        assert "default-src 'none'" in headers["Content-Security-Policy"]
        assert not re.search(rb"(src|href)=\"(https?:)?//", page), "the page must not load anything from elsewhere"
        for asset in (b"app.js", b"style.css"):
            assert asset in page
            assert request(inspector.url + asset.decode())[0] == 200
        assert b"innerHTML" not in request(inspector.url + "app.js")[2]
        assert request(inspector.url, headers={"Host": "attacker.example:80"})[0] == 403
        assert request(inspector.url + "run", "POST")[0] == 403  # no X-Inspector header: cross-site
        assert request(inspector.url + "run", "POST", {"X-Inspector": "1"})[0] == 404  # nothing to run


def test_the_run_button_calls_on_run() -> None:
    runs: list[int] = []
    with Inspector(port=0, on_run=lambda: runs.append(1)) as inspector:
        assert request(inspector.url + "run", "POST", {"X-Inspector": "1"})[0] == 202
    assert runs == [1]


MCPBRIDGE = str(Path(sys.executable).parent / "mcpbridge")


@pytest.mark.parametrize("command", [[sys.executable, "-m", "mcpbridge_demo"], [MCPBRIDGE]], ids=["python-m", "cli"])
def test_inspect_serves_the_demo(command: list[str]) -> None:
    """`python -m mcpbridge_demo inspect` and `mcpbridge inspect`."""
    process = subprocess.Popen(
        [*command, "inspect", "--port", "0", "--delay", "0.05"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert match, f"no URL in {line!r}; stderr: {process.stderr.read() if process.poll() is not None else ''}"
        deadline = time.monotonic() + 30
        calls: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            calls = json.loads(urllib.request.urlopen(match.group(0) + "calls", timeout=5).read())
            if len(calls) == 5 and all(c["status"] != "running" for c in calls):
                break
            time.sleep(0.1)
        assert {c["name"]: c["status"] for c in calls} == {
            "get_forecast": "finished",
            "add": "finished",
            "divide": "error",
            "fetch_page": "finished",
            "research": "finished",
        }
        [research] = [c for c in calls if c["name"] == "research"]
        assert research["taskStatus"] == "completed", research  # ran as an MCP task (mcpbridge-tasks)
        assert research["progress"]["message"].startswith("writing the summary"), research
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize("argv", [["inspect", "--port", "x"], []])
def test_bad_command_lines_exit_with_usage(argv: list[str]) -> None:
    from mcpbridge_demo.__main__ import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2


def test_mcpbridge_inspect_has_the_same_options() -> None:
    shown = subprocess.run([MCPBRIDGE, "inspect", "--help"], capture_output=True, text=True, check=True).stdout
    for option in ("--config", "--host", "--port", "--delay", "--no-run"):
        assert option in shown
    assert "inspect" in subprocess.run([MCPBRIDGE, "--help"], capture_output=True, text=True, check=True).stdout
