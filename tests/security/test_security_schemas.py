"""Schemas from servers: never resolved outside themselves, and patterns that cannot stall
the event loop (a linear-time engine; see also test_security_regex_cost.py)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge
from mcpbridge._tools.schemas import MAX_PATTERNS, schema_problems, server_schema_validator
from mcpbridge.testing import serving
from tests.helpers import stdio_config
from tests.security import hostile_servers
from tests.security.listeners import Listener, listening

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

CALL_LIMIT_S = 10
COSTLY = "^(a|b)*a(a|b){200}$"
"""Exponential states for an automaton, ~600 steps a byte for a linear engine's slow path."""
COSTLY_VALUE = "ab" * 5_000 + "!"


@pytest.fixture
def recorder() -> Iterator[Listener]:
    with listening(answer=True) as listener:
        yield listener


@pytest.fixture
def silent() -> Iterator[Listener]:
    with listening(answer=False) as listener:
        yield listener


@contextlib.asynccontextmanager
async def hostile_bridge(transport: str, ref_port: int, hang_port: int) -> AsyncIterator[MCPBridge]:
    if transport == "inprocess":
        config: dict[str, Any] = {"server": hostile_servers.build(ref_port, hang_port)}
        async with MCPBridge({"hostile": config}, plugins=[], timeout=CALL_LIMIT_S) as bridge:
            yield bridge
    elif transport == "stdio":
        module = "tests.security.hostile_servers"
        config = stdio_config(module, args=["-m", module, str(ref_port), str(hang_port)])
        async with MCPBridge({"hostile": config}, plugins=[], timeout=CALL_LIMIT_S) as bridge:
            yield bridge
    else:
        with serving(hostile_servers.build(ref_port, hang_port).streamable_http_app()) as url:
            async with MCPBridge({"hostile": {"url": url}}, plugins=[], timeout=CALL_LIMIT_S) as bridge:
                yield bridge


def call(name: str, args: dict[str, Any], id: str = "call-1") -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args, "id": id}


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(block["text"] for block in content)  # type: ignore[index]


class LoopWatch:
    """The longest the event loop went without running a 1 ms ticker."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - 0.001)
            last = now

    async def __aenter__(self) -> LoopWatch:
        # What the test session holds stays out of the collector's reach while the loop is
        # watched: a full collection over a long session's heap blocks for hundreds of ms,
        # which is the harness's cost, not the bridge's (whose garbage is still collected).
        gc.collect()
        gc.freeze()
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0)
        return self

    async def settle(self) -> None:
        """Let the ticker run, so a block that just ended is measured (an invalid call never yields)."""
        await asyncio.sleep(0.003)

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        await self.settle()
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        gc.unfreeze()


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_refs_are_never_fetched_and_nothing_blocks(
    transport: str, recorder: Listener, silent: Listener, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge._tools.schemas")
    async with hostile_bridge(transport, recorder.port, silent.port) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        await bridge.list_tools()  # a second listing warns no more
        calls: list[tuple[str, dict[str, Any]]] = [
            ("remote_ref", {"x": {"anything": True}, "n": 1}),
            ("hanging_ref", {"x": 1, "y": "two"}),
            ("file_ref", {"x": "root", "n": 3}),
            ("schema_uri", {"x": [1, 2]}),
            ("malformed_subschema", {"a": "anything", "n": 1}),  # `"items": 5` beside a $ref
        ]
        async with LoopWatch() as watch:
            for name, args in calls:
                message = await asyncio.wait_for(tools[name].ainvoke(call(name, args)), CALL_LIMIT_S)
                assert message.status == "success", text(message)
            wrong = await tools["remote_ref"].ainvoke(call("remote_ref", {"x": 1, "n": "not a number"}))
        assert wrong.status == "error"
        assert 'n: "not a number" is not of type "integer"' in text(wrong)
    assert recorder.connections == []
    assert silent.connections == []
    assert watch.worst < 0.5, f"the loop stalled {watch.worst * 1000:.0f} ms"
    warned = [r.getMessage() for r in caplog.records if r.name == "mcpbridge._tools.schemas"]
    for name in ("remote_ref", "hanging_ref", "file_ref", "local_ref", "schema_uri"):
        assert sum(f"tool {name!r} on server 'hostile'" in line for line in warned) == 1, warned
    assert any(f"'http://127.0.0.1:{recorder.port}/latest/meta-data/iam'" in line for line in warned)


async def test_internal_refs_still_validate_and_missing_ones_count_as_empty(
    recorder: Listener, silent: Listener
) -> None:
    async with hostile_bridge("inprocess", recorder.port, silent.port) as bridge:
        local = {tool.name: tool for tool in await bridge.list_tools()}["local_ref"]
        ok = await local.ainvoke(call("local_ref", {"n": 2, "m": "anything"}))
        bad = await local.ainvoke(call("local_ref", {"n": -1}))
    assert ok.status == "success"
    assert bad.status == "error"
    assert "n: -1 is less than the minimum of 0" in text(bad)


def test_a_file_ref_is_never_read(tmp_path: Path) -> None:
    target = tmp_path / "integer.json"
    target.write_text('{"type": "integer"}')
    schema = {"type": "object", "properties": {"x": {"$ref": target.as_uri()}}}
    assert schema_problems(server_schema_validator(schema), {"x": "not an integer"}) is None


def test_long_refs_are_shortened_in_the_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge._tools.schemas")
    ref = "http://127.0.0.1:9/" + "a" * 5000 + "\nINJECTED"
    server_schema_validator({"properties": {"x": {"$ref": ref}}}, server="s", tool="t")
    (line,) = [r.getMessage() for r in caplog.records]
    assert len(line) < 400
    assert "\n" not in line
    assert "INJECTED" not in line


def test_schemas_checked_per_call_never_fetch_either(recorder: Listener, caplog: pytest.LogCaptureFixture) -> None:
    """Elicitation requested schemas and approval edits go through `schema_problems` with a raw schema."""
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": f"http://127.0.0.1:{recorder.port}/x"}, "n": {"type": "integer"}},
    }
    assert schema_problems(schema, {"x": 1, "n": 2}) is None
    assert schema_problems(schema, {"n": "two"}) == 'n: "two" is not of type "integer"'
    assert recorder.connections == []
    assert caplog.records == []  # tools warn once when built; per-call schemas do not log


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
async def test_catastrophic_patterns_cost_the_loop_milliseconds(
    transport: str, recorder: Listener, silent: Listener
) -> None:
    async with hostile_bridge(transport, recorder.port, silent.port) as bridge:
        tool = {tool.name: tool for tool in await bridge.list_tools()}["catastrophic"]
        fine = await tool.ainvoke(call("catastrophic", {"text": "aaa", "text2": "aaaa", "aaa": 1, "other": "x"}))
        assert fine.status == "success", text(fine)
        hostile: list[dict[str, Any]] = [
            {"text2": "a" * 40 + "!"},
            {"a" * 40 + "!": 1},
            {"text": "a" * 28 + "!"},
        ]
        messages = []
        async with LoopWatch() as watch:
            for args in hostile:
                messages.append(await tool.ainvoke(call("catastrophic", args)))
                await watch.settle()
    assert [m.status for m in messages] == ["error"] * 3
    assert 'does not match "^(a|a)*$"' in text(messages[0])
    assert '1 is not of type "string"' in text(messages[1])  # no pattern property matched: an additional one
    assert 'does not match "^(a+)+$"' in text(messages[2])
    print(f"worst loop block with hostile patterns ({transport}): {watch.worst * 1000:.1f} ms")
    assert watch.worst < 0.1, f"the loop stalled {watch.worst * 1000:.0f} ms"


@pytest.mark.parametrize(
    "pattern",
    ["((b{100}){100}){100}", "(((b{100}){100}){100}){100}", "b{100000}", "x" * 100_000, r"\p{L}{9}{9}{9}", r"(b)\1"],
)
async def test_a_pattern_the_linear_engine_cannot_take_is_not_checked(
    pattern: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Too large for the linear engine, or outside what it runs (a backreference): fast, not
    checked, the rest of the schema still is; one warning when a tool's schema is built."""
    caplog.set_level(logging.WARNING, logger="mcpbridge._tools.schemas")
    schema = {"properties": {"x": {"pattern": pattern}, "n": {"type": "integer"}}}
    async with LoopWatch() as watch:
        started = time.perf_counter()
        validator = server_schema_validator(schema, server="s", tool="t")
        problems = [schema_problems(validator, {"x": "b"}), schema_problems(validator, {"x": "c"})]
        refused = schema_problems(schema, {"x": "c", "n": "one"})  # per call: not logged
        took = time.perf_counter() - started
        await asyncio.sleep(0.005)
    assert problems == [None, None]
    assert refused == 'n: "one" is not of type "integer"'
    assert took < 0.2, took
    assert watch.worst < 0.2, watch.worst
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "values are not checked against the JSON Schema pattern" in warning
    assert "tool 't' on server 's'" in warning
    assert "the server still checks its own input" in warning
    assert len(warning) < 500


async def test_a_schema_of_many_costly_patterns_compiles_a_bounded_few(caplog: pytest.LogCaptureFixture) -> None:
    """1,000 distinct patterns that each take milliseconds to compile held the loop ~10 s when
    the tool was listed: the first `MAX_PATTERNS` are checked, the others left out, noted once."""
    caplog.set_level(logging.WARNING, logger="mcpbridge._tools.schemas")
    names = [f"p{index}" for index in range(1_000)]
    schema = {"properties": {name: {"type": "string", "pattern": rf"^\p{{L}}{{12}}{name}$"} for name in names}}
    async with LoopWatch() as watch:
        validator = server_schema_validator(schema, server="s", tool="t")
        await asyncio.sleep(0.005)
    first, last = names[0], names[-1]
    assert schema_problems(validator, {first: "abcdefghijkl" + first}) is None
    assert schema_problems(validator, {first: "1" * 12 + first}) is not None  # the first ones are checked
    assert schema_problems(validator, {last: "1" * 12 + last}) is None  # past the bound: left out
    (warning,) = [r.getMessage() for r in caplog.records]
    left_out = 1_000 - MAX_PATTERNS
    assert f"{left_out} more distinct pattern(s) are not checked: at most {MAX_PATTERNS} per schema" in warning
    print(f"worst loop block compiling 1,000 costly patterns: {watch.worst * 1000:.0f} ms")


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"x": {"not": {"type": "string", "pattern": COSTLY}}}},
        {"properties": {"x": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": COSTLY}]}}},
        {"patternProperties": {COSTLY: {}}, "additionalProperties": False},
        {"patternProperties": {COSTLY: {}}, "unevaluatedProperties": False},
    ],
    ids=["not", "anyOf", "additionalProperties", "unevaluatedProperties"],
)
def test_costly_patterns_anywhere_are_decided_in_linear_time(schema: dict[str, Any]) -> None:
    """Under `not` or `anyOf`, or read by `additionalProperties` / `unevaluatedProperties`
    to learn which properties `patternProperties` covers: every search is the linear one."""
    keys, negated = "patternProperties" in schema, "not" in str(schema)
    matching = "a" + "b" * 200

    def check(text: str) -> str | None:
        return schema_problems(schema, {text: 1} if keys else {"x": text})

    for text in (COSTLY_VALUE * 20, matching * 500 + "!"):  # 200 KB that never match
        started = time.perf_counter()
        problem = check(text)
        assert time.perf_counter() - started < 0.05
        assert (problem is None) == negated
    assert (check(matching) is None) == (not negated)


def test_an_invalid_pattern_is_ignored() -> None:
    assert schema_problems({"properties": {"x": {"pattern": "(unclosed"}}}, {"x": "anything"}) is None
    assert schema_problems({"properties": {"x": {"pattern": 5}}}, {"x": "anything"}) is None


def test_stdio_server_module_runs() -> None:
    assert stdio_config("tests.security.hostile_servers")["args"][-1] == "tests.security.hostile_servers"
    assert sys.executable
