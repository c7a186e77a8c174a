"""A server flooding one call with log notifications (10,000 lines and one of 1 MB), in-process
(over stdio the flood comes with no call and reaches none), watched by the inspector and a
page: the events plugin keeps at most `max_updates_per_call` updates per call (the latest,
counting the others), cuts every text at `max_text_bytes`, and the inspector sends each change
as a delta, so the flood costs linear time, bounded memory and bounded payloads; a bystander
call on another server is unharmed."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import mcpbridge_events
import pytest
from hypothesis import example, given, settings, strategies as st
from mcpbridge_demo.inspector import Inspector, serve
from mcpbridge_events import EVENT_TYPE, AssembledToolCall, ToolCallAssembler

from mcpbridge import ConfigError, MCPBridge
from mcpbridge.testing import make_agent, tool_call_turn
from tests.helpers import stdio_config
from tests.security import log_flood_server

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

SMALL, LARGE = 2_000, 10_000
BIG_LINE = 1_000_000
MAX_UPDATES, MAX_TEXT = 200, 4096
"""The documented defaults of `[plugins.events] max_updates_per_call` and `max_text_bytes`."""
RUN_BUDGET_S = 40.0
"""10,000 lines take a few seconds here; the quadratic inspector needed minutes."""
ENVELOPE = 400
"""Room for an update's keys, ids and counters around its text."""


@dataclass
class Page:
    """What a page connected to the inspector's event stream learned (sizes, not the bytes)."""

    largest: dict[str, int] = field(default_factory=dict)
    """kind → the largest payload seen, in bytes: "snapshot" (a `call` with its updates), "call", "update"."""
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    """call id → its latest fields."""
    call_events: dict[str, int] = field(default_factory=dict)
    """call id → how many `call` deltas (fields only) arrived."""
    updates: dict[str, int] = field(default_factory=dict)
    """call id → how many `update` deltas arrived."""
    kept: dict[str, tuple[int, int]] = field(default_factory=dict)
    """call id → (index of its latest update, how many earlier ones it no longer keeps)."""
    changed: threading.Condition = field(default_factory=threading.Condition)

    def read(self, url: str) -> None:
        parts = urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=RUN_BUDGET_S)
        connection.request("GET", "/events")
        response = connection.getresponse()
        kind = ""
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                self._take(kind, line[6:])
        connection.close()

    def _take(self, kind: str, payload: str) -> None:
        data = json.loads(payload)
        call_id = data.get("callId")
        with self.changed:
            if kind == "call" and "updates" in data:  # a snapshot: on connecting, or when left behind
                kind = "snapshot"
                self.kept[call_id] = (data["updatesDropped"] + len(data["updates"]) - 1, data["updatesDropped"])
            elif kind == "call":
                self.call_events[call_id] = self.call_events.get(call_id, 0) + 1
            elif kind == "update":
                self.updates[call_id] = self.updates.get(call_id, 0) + 1
                self.kept[call_id] = (data["index"], data["dropped"])
            if call_id is not None and kind in ("call", "snapshot"):
                self.calls[call_id] = data
            self.largest[kind] = max(self.largest.get(kind, 0), len(payload.encode()))
            self.changed.notify_all()

    def wait_settled(self, call_id: str, timeout: float) -> dict[str, Any]:
        with self.changed:
            settled = self.changed.wait_for(
                lambda: self.calls.get(call_id, {}).get("status") in ("finished", "error"), timeout
            )
        assert settled, f"the page never saw {call_id} settle: {self.calls.get(call_id)}"
        return self.calls[call_id]


@contextmanager
def watched() -> Iterator[tuple[Inspector, Page]]:
    """An inspector with a page connected to its event stream."""
    page = Page()
    with serve(port=0) as inspector:
        reader = threading.Thread(target=page.read, args=(inspector.url,), daemon=True)
        reader.start()
        yield inspector, page
    reader.join(timeout=10)


@dataclass
class Run:
    seconds: float
    largest_update_event: int
    """The largest `update` event on the custom stream, in bytes of JSON."""


async def run_flood(bridge: MCPBridge, inspector: Inspector, count: int, thread: str) -> Run:
    """One agent turn: `flood(count)` (with one 1 MB line) and a bystander `echo` on another server."""
    turn = tool_call_turn(
        ("flood_flood", {"count": count, "big_bytes": BIG_LINE}), ("other_echo", {"text": "bystander"})
    )
    for asked in turn.tool_calls:
        asked["id"] = f"{thread}-{asked['id']}"
    agent = make_agent([turn], await bridge.list_tools())
    config = {"configurable": {"thread_id": thread}}
    largest = 0
    started = time.perf_counter()
    try:
        async with asyncio.timeout(RUN_BUDGET_S):
            stream = agent.astream({"messages": [("user", "go")]}, config, stream_mode=["updates", "custom"])
            async for mode, chunk in inspector.track(stream):
                if mode == "custom" and chunk.get("type") == EVENT_TYPE and chunk["event"] == "update":
                    largest = max(largest, len(json.dumps(chunk)))
    except TimeoutError:
        pytest.fail(f"{count:,} log lines in one call took more than {RUN_BUDGET_S} s")
    return Run(time.perf_counter() - started, largest)


def check_kept(call: AssembledToolCall, count: int) -> None:
    """The assembler keeps the latest MAX_UPDATES updates, counts the rest, cuts the 1 MB line."""
    total = count + 1  # the lines and the big one
    assert len(call.updates) == MAX_UPDATES
    assert call.updates_dropped == total - MAX_UPDATES
    assert call.updates[-1]["data"] == f"line {count - 1}"
    big = call.updates[-3]["data"]
    assert big.startswith("BBBB")
    assert len(big.encode()) <= MAX_TEXT
    assert big.endswith(f" of {BIG_LINE:,} bytes cut]")
    assert all(len(json.dumps(update).encode()) <= MAX_TEXT + ENVELOPE for update in call.updates)


def check_page(page: Page, call_id: str, count: int) -> None:
    """The page keeps what the assembler keeps; no delta grows with the call's history, and a
    log line changes no field of the call."""
    assert page.kept[call_id] == (count, count + 1 - MAX_UPDATES)
    assert page.updates[call_id] > 0
    assert page.largest["update"] <= MAX_TEXT + ENVELOPE
    assert page.largest.get("call", 0) <= 3000, "a change of a call's fields must not carry its updates"
    assert page.call_events.get(call_id, 0) <= 10


async def check_flood(inspector: Inspector, page: Page, run: Run, thread: str, count: int) -> None:
    """Bounded on the stream, in the assembler and on the page; the bystander call on another
    server hears none of the flood and finishes."""
    assert run.largest_update_event <= MAX_TEXT + ENVELOPE, "the 1 MB line reached the stream whole"
    flood_card = await asyncio.to_thread(page.wait_settled, f"{thread}-call-1", 10)
    bystander_card = await asyncio.to_thread(page.wait_settled, f"{thread}-call-2", 10)
    flood, bystander = inspector.assembler.get(f"{thread}-call-1"), inspector.assembler.get(f"{thread}-call-2")
    assert flood is not None
    assert bystander is not None
    check_kept(flood, count)
    assert flood_card["status"] == "finished"
    check_page(page, f"{thread}-call-1", count)
    assert (bystander_card["status"], bystander_card["output"]) == ("finished", {"result": "bystander"})
    assert f"{thread}-call-2" not in page.updates
    assert (len(bystander.updates), bystander.updates_dropped) == (0, 0)


async def test_ten_thousand_log_lines_in_one_call_cost_linear_time_and_bounded_memory() -> None:
    servers = {"flood": log_flood_server.build(), "other": log_flood_server.build()}
    with watched() as (inspector, page):
        async with MCPBridge(servers, plugins=[mcpbridge_events], tool_name_prefix=True, timeout=60) as bridge:
            small = await run_flood(bridge, inspector, SMALL, "small")
            # bounded before anything is timed (the old inspector resent every update on every change)
            await check_flood(inspector, page, small, "small", SMALL)
            large = await run_flood(bridge, inspector, LARGE, "large")
            await check_flood(inspector, page, large, "large", LARGE)
    # linear: five times the lines in about five times the time (quadratic: 25 times)
    assert large.seconds < 12 * small.seconds, (small.seconds, large.seconds)


async def test_a_log_flood_over_stdio_reaches_no_call() -> None:
    """The server's own process floods the pipe (its cost, not the bridge's, sets the pace here).
    stdio says nothing of which request a log message came with, so the flood is the server's
    (its logger's): neither the flooding call nor the bystander hears a line of it."""
    servers = {"flood": stdio_config("tests.security.log_flood_server"), "other": log_flood_server.build()}
    with watched() as (inspector, page):
        async with MCPBridge(servers, plugins=[mcpbridge_events], tool_name_prefix=True, timeout=60) as bridge:
            run = await run_flood(bridge, inspector, SMALL, "stdio")
            cards = [await asyncio.to_thread(page.wait_settled, f"stdio-call-{n}", 10) for n in (1, 2)]
    assert run.largest_update_event == 0, "a log line reached the stream"
    assert [card["status"] for card in cards] == ["finished", "finished"]
    for call_id in ("stdio-call-1", "stdio-call-2"):
        assert call_id not in page.updates
        call = inspector.assembler.get(call_id)
        assert call is not None
        assert (len(call.updates), call.updates_dropped) == (0, 0)


async def test_the_caps_come_from_the_plugin_settings() -> None:
    caps = {"events": {"max_updates_per_call": 5, "max_text_bytes": 300}}
    async with MCPBridge(
        {"flood": log_flood_server.build()}, plugins=[mcpbridge_events], plugin_settings=caps
    ) as bridge:
        agent = make_agent([tool_call_turn(("flood", {"count": 50, "big_bytes": 10_000}))], await bridge.list_tools())
        assembler = ToolCallAssembler()
        config = {"configurable": {"thread_id": "t1"}}
        chunks = [c async for c in agent.astream({"messages": [("user", "go")]}, config, stream_mode="custom")]
    for chunk in chunks:
        assembler.feed(chunk)
    [call] = assembler.tool_calls
    assert [u["data"][:4] for u in call.updates] == ["line", "line", "BBBB", "line", "line"]
    assert call.updates_dropped == 46
    assert all(len(u["data"].encode()) <= 300 for u in call.updates)
    assert "9,7" in call.updates[2]["data"], call.updates[2]["data"]  # how much was cut
    assert max(len(c["data"]["data"].encode()) for c in chunks if c["event"] == "update") <= 300


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("max_updates_per_call", 0, "greater than or equal to 1"),
        ("max_text_bytes", 10, "greater than or equal to 256"),
        ("max_text_bytes", "4k", "a valid integer"),
    ],
)
def test_a_bad_cap_is_a_config_error_naming_the_key_and_the_bound(key: str, value: object, reason: str) -> None:
    with pytest.raises(ConfigError, match=rf"plugins\.events\.{key}`: Input should be {reason}"):
        MCPBridge(
            {"flood": log_flood_server.build()}, plugins=[mcpbridge_events], plugin_settings={"events": {key: value}}
        )


def update(call_id: str, text: str) -> dict[str, Any]:
    return {"type": EVENT_TYPE, "event": "update", "tool_call_id": call_id, "update": "log", "data": {"data": text}}


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(exclude_categories=()), max_size=600), cap=st.integers(min_value=256, max_value=600))
@example(text="é" * 300 + "\ud800" + "😀" * 100, cap=256)
@example(text="B" * BIG_LINE, cap=MAX_TEXT)
def test_any_text_is_kept_whole_or_cut_to_the_cap_with_a_marker(text: str, cap: int) -> None:
    assembler = ToolCallAssembler(max_text_bytes=cap)
    [call] = assembler.feed(update("c", text))
    kept = call.updates[-1]["data"]
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= cap:
        assert kept == text
    else:
        assert len(kept.encode("utf-8", "surrogatepass")) <= cap
        prefix = kept[: kept.rindex("… [")]
        assert text.startswith(prefix)
        assert kept == f"{prefix}… [{size - len(prefix.encode('utf-8', 'surrogatepass')):,} of {size:,} bytes cut]"
