"""Server text costs the bridge linear time: the redaction patterns that run on every log
record and error (`a-a-…a_ x://` made the URL pattern quadratic: seconds for 60 KB), the
cap on quoted server text, and JSON Schema patterns on the linear-time engine. Real
servers: a stdio server that dies with crafted stderr lines and floods crafted log
messages, next to an in-process bystander that must stay fast."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import mcpbridge_retry
import pytest
from hypothesis import example, given, strategies as st
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from mcpbridge import MCPBridge, ServerConnectionError, redact_text
from mcpbridge._base.errors import MAX_MESSAGE_CHARS, MAX_QUOTED_CHARS, capped
from mcpbridge._tools.schemas import schema_problems, server_schema_validator
from mcpbridge.testing import make_server
from tests.helpers.waiting import until
from tests.security.test_security_schemas import LoopWatch

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

SIZES = (30_000, 60_000)
LINE = 60_000
LAST_WORDS = "goodbye: the server gives up"
FLOOD = 300


def crafted(size: int) -> str:
    """What made the URL pattern quadratic: a long run of scheme characters, then no scheme."""
    return ("a-" * size)[: size - 6] + "_ x://"


def benign(size: int) -> str:
    return ("GET https://example.com/a?user=1 took 3 ms; " * (size // 40 + 1))[:size]


DYING_SERVER = f"""
import os, sys, threading, warnings
from mcp.server.mcpserver import Context, MCPServer

warnings.filterwarnings("ignore")  # MCP logging is deprecated, still served
CRAFTED = {crafted(LINE)!r}
server = MCPServer("dying")


def last_words():
    sys.stderr.write(CRAFTED + "\\n" + CRAFTED + "\\n" + {LAST_WORDS!r} + "\\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def die() -> str:
    "Crafted stderr lines, then exit in the middle of the call."
    last_words()


@server.tool()
def die_soon() -> str:
    "Answer, then die on its own: the bridge warns, quoting its stderr tail."
    threading.Timer(0.2, last_words).start()
    return "bye"


@server.tool()
async def chatty(ctx: Context, count: int) -> str:
    for _ in range(count):
        await ctx.warning(CRAFTED[-3900:])  # under the 4,000 characters of a log line
    return "done"


server.run()
"""
"""A stdio server that dies with two crafted 60 KB stderr lines and floods crafted log
messages; a script, so it starts in the time `import mcp` takes."""
DYING = {"command": sys.executable, "args": ["-c", DYING_SERVER]}


def fastest(run: Callable[[str], object], text: str, tries: int = 5) -> float:
    """The least time `run(text)` took in a few tries (stops trying once one is slow)."""
    best = float("inf")
    for _ in range(tries):
        started = time.perf_counter()
        run(text)
        best = min(best, time.perf_counter() - started)
        if best > 0.2:
            break
    return best


def log_record(text: str) -> None:
    """A warning quoting `text`, as the bridge logs a server's stderr (redacted when created)."""
    logging.getLogger("mcpbridge.server.x").warning("server ended: %s", text)


@functools.cache
def url_pattern_validator() -> Any:
    return server_schema_validator({"properties": {"x": {"pattern": r"\b[a-z][a-z0-9+.-]*://\S+"}}})


def schema_check(text: str) -> None:
    schema_problems(url_pattern_validator(), {"x": text})


@pytest.mark.parametrize("run", [lambda text: redact_text(text, ["s3cret-value"]), log_record, schema_check])
def test_crafted_text_costs_linear_time(run: Callable[[str], object], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge.server.x")  # records are made (and redacted)
    floor = 0.02  # below tens of milliseconds, a loaded machine's noise dominates a ratio (the old code took seconds)
    times = {(make.__name__, size): fastest(run, make(size)) for make in (crafted, benign) for size in SIZES}
    print({key: f"{value * 1000:.2f} ms" for key, value in times.items()})
    small, large = SIZES
    for kind in ("crafted", "benign"):
        growth = times[kind, large] / max(times[kind, small], floor)
        assert growth < 3.0, f"{kind}: {large} characters took {growth:.1f} times the time of {small} (linear: 2)"
    assert times["crafted", large] < 10 * max(times["benign", large], floor), times


def test_quoted_text_keeps_both_ends_and_never_half_a_token() -> None:
    text = "start " + "x" * 10_000 + " http://user:pass@host/path " + "y" * 10_000 + " the end"
    cut = capped(text, 200)
    assert len(cut) <= 200 + 40
    assert cut.startswith("start ")
    assert cut.endswith(" the end")
    assert "characters left out" in cut
    assert "x" not in cut  # the cut words are left out, not shown in half
    assert "y" not in cut
    assert capped("short", 200) == "short"
    token = "http://user:secret-password@host/" + "z" * 500
    for limit in range(50, 400, 7):  # wherever the cut falls, no piece of the URL's credentials shows
        cut = capped(f"a {token} b", limit)
        assert "secret" not in cut
        assert "password" not in cut


@given(st.text(alphabet="ab: \n/@", max_size=300), st.integers(min_value=0, max_value=320))
@example("a b", 1)
def test_a_cut_shows_only_whole_words(text: str, limit: int) -> None:
    cut = capped(text, limit)
    if cut == text:
        assert len(text) <= limit
        return
    head, _, rest = cut.partition("… (")
    tail = rest.partition(" characters left out) …")[2]
    words = set(text.split())
    assert set(head.split()) <= words
    assert set(tail.split()) <= words
    assert len(head) + len(tail) <= limit


@pytest.mark.parametrize("pattern", [r"^(a|a)*$", r"^(a+)+$", r"(a|b)*a(a|b){20}$"])
def test_schema_patterns_decide_in_linear_time(pattern: str) -> None:
    """Exponential on a backtracking engine; decided, not timed out, on the linear-time one."""
    validator = server_schema_validator({"properties": {"x": {"pattern": pattern}}})
    started = time.perf_counter()
    problem = schema_problems(validator, {"x": "a" * 40 + "!"})
    assert time.perf_counter() - started < 0.05
    assert problem is not None
    assert "does not match" in problem


@pytest.mark.parametrize("pattern", ["(a|b)*a(a|b){200}", "^(a|b)*a(a|b){200}$", r"^\p{L}+(\s\p{L}+)*$"])
def test_a_large_pattern_on_a_huge_value_is_decided_in_linear_time(pattern: str) -> None:
    """The engine's slow path costs each byte the pattern's size (~600 instructions here): a
    megabyte is still decided, with the right verdict, in milliseconds."""
    validator = server_schema_validator({"properties": {"x": {"pattern": pattern}}})
    for value, fits in [("ab" * 500_000 + "a" + "b" * 200, True), ("b" * 1_000_000 + "!", False)]:
        started = time.perf_counter()
        problem = schema_problems(validator, {"x": value})
        assert time.perf_counter() - started < 0.1  # ~10 ms: most of it quoting the value in the message
        assert (problem is None) == fits, problem
        if problem is not None:
            assert "does not match" in problem
            assert len(problem) < 500  # the value is quoted, cut


async def test_retry_error_patterns_run_in_linear_time_on_error_results() -> None:
    """The retry plugin searches a user's `error_patterns` in a server's error text: with
    Python's `re`, `.*unavailable` took ~13 s on 100 KB that never says it."""

    def lookup() -> str:
        """Fails with a long error message."""
        raise ToolError("x" * 100_000)

    server = make_server(lookup, annotations={"lookup": ToolAnnotations(read_only_hint=True)})
    settings = {"retry": {"initial": 0.01, "error_patterns": [".*unavailable", "(?i)rate.?limit"]}}
    bridge = MCPBridge({"s": {"server": server}}, plugins=[mcpbridge_retry], plugin_settings=settings)
    async with bridge, LoopWatch() as watch:
        started = time.perf_counter()
        message = await bridge.call_tool("s", "lookup")
        took = time.perf_counter() - started
    assert message.status == "error"
    assert took < 0.5, f"matching error patterns took {took:.1f} s"
    assert watch.worst < 0.2


def echo(text: str) -> str:
    """Echo the text back."""
    return text


@dataclass
class Beside:
    """What a bystander saw while a block ran: the loop's longest block, its slowest call."""

    worst: float = 0.0
    slowest: float = 0.0


@contextlib.asynccontextmanager
async def beside_a_bystander(server: dict[str, Any]) -> AsyncIterator[tuple[MCPBridge, Beside]]:
    """A bridge to `server` ("dying") and an in-process bystander, whose echo is called all
    through the block while a ticker watches the loop."""
    seen = Beside()
    servers = {"dying": server, "bystander": {"server": make_server(echo, name="bystander")}}
    async with MCPBridge(servers, plugins=[]) as bridge:
        await bridge.list_tools()
        stop = asyncio.Event()

        async def call_the_bystander() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                message = await bridge.call_tool("bystander", "echo", {"text": "hi"})
                assert message.status == "success"
                seen.slowest = max(seen.slowest, time.perf_counter() - started)
                await asyncio.sleep(0.01)

        async with LoopWatch() as watch:
            calls = asyncio.create_task(call_the_bystander())
            try:
                yield bridge, seen
            finally:
                stop.set()
                await calls
        seen.worst = watch.worst


def assert_unhurt(seen: Beside, worst: float) -> None:
    print(f"loop: worst block {seen.worst * 1000:.0f} ms; bystander: slowest call {seen.slowest * 1000:.0f} ms")
    assert seen.worst < worst, f"the loop stalled {seen.worst * 1000:.0f} ms"
    assert seen.slowest < 0.5, f"a bystander call took {seen.slowest * 1000:.0f} ms"


async def test_a_server_dying_with_crafted_stderr_blocks_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge")
    async with beside_a_bystander(DYING) as (bridge, seen):
        assert (await bridge.call_tool("dying", "die_soon")).status == "success"
        await until(lambda: any("ended" in r.getMessage() for r in caplog.records), "the server's death being logged")
        with pytest.raises(ServerConnectionError) as died:
            await bridge.call_tool("dying", "die")
        shown = redact_text(str(died.value))  # what the CLI prints
    ended = [r.getMessage() for r in caplog.records if "ended" in r.getMessage()]
    assert ended, "the server's own death was not reported"
    assert LAST_WORDS in ended[0]
    assert len(ended[0]) < MAX_QUOTED_CHARS + 300
    assert LAST_WORDS in str(died.value)
    assert "exited with code 3" in str(died.value)
    assert len(str(died.value)) <= MAX_MESSAGE_CHARS
    assert shown == str(died.value)
    assert_unhurt(seen, worst=0.3)


async def test_a_flood_of_crafted_log_messages_costs_little(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge.server.dying")
    async with beside_a_bystander(DYING) as (bridge, seen):
        started = time.perf_counter()
        message = await bridge.call_tool("dying", "chatty", {"count": FLOOD})
        took = time.perf_counter() - started
    assert message.status == "success"
    logged = [r for r in caplog.records if r.name == "mcpbridge.server.dying" and hasattr(r, "mcp_level")]
    assert len(logged) == FLOOD
    print(f"{FLOOD} crafted log messages: {took * 1000:.0f} ms")
    assert took < 2.0, f"{FLOOD} crafted log messages took {took:.1f} s (each was ~12 ms on the quadratic pattern)"
    assert_unhurt(seen, worst=0.2)
