"""Input schemas whose cost explodes: bounded once, when the tool is listed (a tool over a
bound is left out with one warning, the others stay), validation never holds the event loop,
and arguments nested too deep are an error message, never a crash of the run."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from jsonschema import _utils as jsonschema_utils
from langchain_core.messages import ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_core.utils.json_schema import dereference_refs

from mcpbridge import ConfigError, MCPBridge, Settings, load_settings, schema_problems
from mcpbridge._tools.schema_cost import SchemaOverBound, measure
from mcpbridge.testing import make_agent, serving, tool_call_turn
from tests.helpers import stdio_config
from tests.security import costly_servers, hostile_servers
from tests.security.test_security_schemas import LoopWatch, call, text

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

MODULE = "tests.security.costly_servers"
LISTED = {"tree", "rows", "dangling", "echo"}


@pytest.fixture(autouse=True)
def collector_paused() -> Iterator[None]:
    """No full passes of the garbage collector while measuring: over the heap of the imports
    (langchain, mcp, ...) they take 100-300 ms on a loaded machine whatever code runs, so
    the loop blocks measured here are the bridge's own."""
    gc.disable()
    yield
    gc.enable()


@contextlib.asynccontextmanager
async def costly_bridge(transport: str, **options: Any) -> AsyncIterator[MCPBridge]:
    """The bomb server over `transport`; `options` are settings (`max_schema_refs = ...`)."""
    options.setdefault("timeout", 30)
    if transport == "inprocess":
        async with MCPBridge(
            {"costly": {"server": costly_servers.bombs()}}, plugins=[], settings=Settings(**options)
        ) as bridge:
            yield bridge
    elif transport == "stdio":
        async with MCPBridge({"costly": stdio_config(MODULE)}, plugins=[], settings=Settings(**options)) as bridge:
            yield bridge
    else:
        with serving(costly_servers.bombs().streamable_http_app()) as url:
            async with MCPBridge({"costly": {"url": url}}, plugins=[], settings=Settings(**options)) as bridge:
                yield bridge


def nested(depth: int, leaf: Any = 1) -> dict[str, Any]:
    """`{"tree": {"child": {"child": ... {"value": leaf}}}}` with `depth` nodes."""
    node: dict[str, Any] = {"value": leaf}
    for _ in range(depth - 1):
        node = {"value": 0, "child": node}
    return {"tree": node}


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_a_costly_schema_leaves_its_tool_out_with_one_warning(
    transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge")
    async with costly_bridge(transport) as bridge:
        await bridge.session("costly")  # opening it lists the tools: the SDK's own listing is not measured
        async with LoopWatch() as watch:
            tools = {tool.name: tool for tool in await bridge.list_tools()}
        await bridge.list_tools(refresh=True)  # the same definitions again: no second warning
        assert set(tools) == LISTED
        message = await tools["echo"].ainvoke(call("echo", {"a": 1}))
        assert message.status == "success", text(message)
    assert watch.worst < 0.2, f"listing held the loop {watch.worst * 1000:.0f} ms"
    warned = [r.getMessage() for r in caplog.records if "leaving out tool" in r.getMessage()]
    assert len(warned) == 3, warned
    expected = {
        "doubling": "max_schema_refs=1000",
        "chain": "max_schema_depth=64",
        "huge": "max_schema_bytes=131072",
    }
    for tool, bound in expected.items():
        (line,) = [line for line in warned if f"tool {tool!r}" in line]
        assert "server 'costly'" in line, line
        assert bound in line, line


async def test_the_schemas_handed_to_the_model_are_bounded_and_convert() -> None:
    """What LangChain's `convert_to_openai_tool` (and so every `bind_tools`) makes of every
    listed tool: quickly, within the bounds, and without raising on a `$ref` it cannot inline."""
    servers = {"costly": {"server": costly_servers.bombs()}, "hostile": {"server": hostile_servers.build()}}
    async with MCPBridge(servers, plugins=[], tool_name_prefix=True) as bridge:
        tools = await bridge.list_tools()
        dangling = next(tool for tool in tools if tool.name == "costly_dangling")
        wrong = await dangling.ainvoke(call("costly_dangling", {"n": "three", "missing": 1}))
    assert {"hostile_remote_ref", "hostile_file_ref", "hostile_local_ref"} <= {tool.name for tool in tools}
    for tool in tools:
        started = time.perf_counter()
        converted = convert_to_openai_tool(tool)
        took = time.perf_counter() - started
        assert took < 0.05, f"{tool.name}: {took * 1000:.0f} ms"
        assert len(json.dumps(converted)) < 131072
    assert text(wrong) == 'Invalid arguments for tool \'costly_dangling\': n: "three" is not of type "integer"'


async def test_the_bounds_are_settings(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge")
    async with costly_bridge("inprocess", max_schema_refs=100_000, max_schema_depth=100) as bridge:
        names = {tool.name for tool in await bridge.list_tools()}
    assert names == LISTED | {"chain"}
    (doubling,) = [r.getMessage() for r in caplog.records if "tool 'doubling'" in r.getMessage()]
    assert "max_schema_bytes=131072" in doubling  # the next bound it passes


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
async def test_a_recursive_schema_stays_usable_and_deep_arguments_are_an_error_message(transport: str) -> None:
    async with costly_bridge(transport) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        tree, echo = tools["tree"], tools["echo"]
        fine = await tree.ainvoke(call("tree", nested(20)))
        wrong = await tree.ainvoke(call("tree", nested(20, leaf="not a number")))
        async with LoopWatch() as watch:
            deep = await tree.ainvoke(call("tree", nested(250)))
        bystander = await echo.ainvoke(call("echo", {"after": True}))
    assert fine.status == "success", text(fine)
    assert wrong.status == "error"
    assert "tree/" + "child/" * 19 + 'value: "not a number" is not of type "integer"' in text(wrong)
    assert deep.status == "error"
    assert "nests more than 64 levels deep, over max_argument_depth=64" in text(deep), text(deep)
    assert bystander.status == "success"
    assert watch.worst < 0.1, f"the loop stalled {watch.worst * 1000:.0f} ms"


async def test_deep_arguments_in_an_agent_run_end_in_an_error_message() -> None:
    async with costly_bridge("inprocess") as bridge:
        tools = await bridge.list_tools()
        agent = make_agent([tool_call_turn(("tree", nested(250)))], tools)
        result = await agent.ainvoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "deep"}})
    (message,) = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.status == "error"
    assert "max_argument_depth=64" in text(message), text(message)


def test_a_depth_limit_past_what_the_sdk_can_send_is_a_config_error(tmp_path: Path) -> None:
    """pydantic, which serializes every request, refuses values nested past ~254 levels."""
    config = tmp_path / "mcpbridge.toml"
    config.write_text("max_argument_depth = 200\n")
    assert load_settings(config).max_argument_depth == 200
    config.write_text("max_argument_depth = 201\n")
    with pytest.raises(ConfigError, match="max_argument_depth"):
        load_settings(config)


def test_schema_problems_reports_deep_values_and_never_raises() -> None:
    assert schema_problems(costly_servers.TREE, nested(30)) is None
    problem = schema_problems(costly_servers.TREE, nested(250))
    assert problem is not None
    assert "max_argument_depth=64" in problem
    started = time.perf_counter()
    assert schema_problems({"$ref": "#"}, nested(3)) is None  # refers to itself forever: it constrains nothing
    assert time.perf_counter() - started < 0.05


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
async def test_costly_validation_never_holds_the_loop(transport: str) -> None:
    """Small schemas, large arguments (10,000 rows against six alternatives, 3,000 objects to tell
    apart): checked in milliseconds, so the loop is never held long."""
    many_rows = [{"kind": "f", "n": i} for i in range(10_000)]
    distinct = [{"n": i} for i in range(3000)]
    async with costly_bridge(transport) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        rows, echo = tools["rows"], tools["echo"]

        async def bystander() -> float:
            await asyncio.sleep(0.05)
            started = time.perf_counter()
            await echo.ainvoke(call("echo", {"bystander": 1}, id="bystander"))
            return time.perf_counter() - started

        async with LoopWatch() as watch:
            heavy, waited = await asyncio.gather(rows.ainvoke(call("rows", {"rows": many_rows})), bystander())
            unique = await rows.ainvoke(call("rows", {"unique": distinct}))
            repeated = await rows.ainvoke(call("rows", {"unique": [*distinct, {"n": 7}]}))
    assert heavy.status == "success", text(heavy)
    assert unique.status == "success", text(unique)
    assert repeated.status == "error"
    assert "has non-unique elements" in text(repeated)
    assert len(text(repeated)) < 500
    print(f"heavy validation ({transport}): worst loop block {watch.worst * 1000:.1f} ms, bystander {waited:.3f} s")
    assert watch.worst < 0.2, f"the loop stalled {watch.worst * 1000:.0f} ms"  # seconds, checked on the loop
    assert waited < 1.0


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False) | st.text("ab", max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON, max_size=6))
def test_unique_items_agrees_with_jsonschema(items: list[Any]) -> None:
    """The linear `uniqueItems` calls the same items equal as jsonschema's pairwise one (1 == 1.0, true != 1)."""
    expected = jsonschema_utils.uniq(items)
    assert (schema_problems({"uniqueItems": True}, items) is None) == expected


# -- the measure agrees with what LangChain inlines -------------------------------------

SMALL = Settings(max_schema_depth=12, max_schema_refs=40, max_schema_bytes=3000).schema_bounds()


@st.composite
def ref_graphs(draw: st.DrawFn) -> dict[str, Any]:
    """A schema of up to 6 definitions referring to each other (cycles included) and to leaves."""
    count = draw(st.integers(1, 6))
    names = [f"d{i}" for i in range(count)]
    defs: dict[str, Any] = {}
    for name in names:
        targets = draw(st.lists(st.sampled_from(names), max_size=3))
        words = draw(st.text("abc", max_size=20))
        members: list[Any] = [{"$ref": f"#/$defs/{target}"} for target in targets]
        members.append({"type": "string", "description": words})
        shape = draw(st.sampled_from(["allOf", "properties"]))
        if shape == "allOf":
            defs[name] = {"allOf": members}
        else:
            defs[name] = {"type": "object", "properties": {f"p{i}": m for i, m in enumerate(members)}}
    root = draw(st.sampled_from(names))
    return {"type": "object", "$defs": defs, "properties": {"x": {"$ref": f"#/$defs/{root}"}}}


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ref_graphs())
def test_a_schema_within_the_bounds_inlines_within_them(schema: dict[str, Any]) -> None:
    try:
        measure(schema, SMALL)
    except SchemaOverBound:
        return
    inlined = dereference_refs(schema)
    assert len(json.dumps(inlined, separators=(",", ":"))) <= SMALL.max_bytes
    assert _depth(inlined) <= SMALL.max_depth


def test_the_measure_is_cheap_for_a_bomb_and_exact_for_shared_parts() -> None:
    for depth, bound in [(30, "max_schema_refs=1000"), (60, "max_schema_depth=64")]:
        started = time.perf_counter()
        with pytest.raises(SchemaOverBound, match=bound):
            measure(costly_servers.doubling(depth), Settings().schema_bounds())  # 2**31 and 2**61 references
        assert time.perf_counter() - started < 0.1
    measure(costly_servers.doubling(8), Settings().schema_bounds())  # 511 references: within the bound
    with pytest.raises(SchemaOverBound, match="max_schema_refs=500"):
        measure(costly_servers.doubling(8), Settings(max_schema_refs=500).schema_bounds())
    measure(costly_servers.TREE, Settings(max_schema_refs=1).schema_bounds())  # the recursion is inlined once
