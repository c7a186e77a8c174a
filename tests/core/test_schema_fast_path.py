"""Tool arguments are checked first by the compiled validator (jsonschema-rs): it must agree
with jsonschema, the reference that describes what is wrong, on every schema it takes; and
the schemas it must not take (patterns, which only the cost-bounded engine runs, and schemas
that break the meta-schema) are left to jsonschema."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings, strategies as st

from mcpbridge._base.config import SchemaBounds
from mcpbridge._tools.schemas import ToolSchema, server_schema_validator

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from("abcd"), inner, max_size=4),
    max_leaves=12,
)
TYPES = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])


def keywords(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    """Keywords that apply to one type, with small bounds."""
    small = st.integers(0, 4)
    by_kind: dict[str, st.SearchStrategy[dict[str, Any]]] = {
        "string": st.fixed_dictionaries({}, optional={"minLength": small, "maxLength": small}),
        "integer": st.fixed_dictionaries({}, optional={"minimum": small, "multipleOf": st.integers(1, 3)}),
        "number": st.fixed_dictionaries({}, optional={"maximum": st.floats(-5, 5), "exclusiveMinimum": small}),
        "array": st.fixed_dictionaries({}, optional={"maxItems": small, "uniqueItems": st.booleans()}),
    }
    return by_kind.get(kind, st.just({}))


@st.composite
def schemas(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    kind = draw(TYPES)
    schema: dict[str, Any] = {"type": kind, **draw(keywords(kind))}
    if draw(st.booleans()):
        schema["enum"] = draw(st.lists(JSON, min_size=1, max_size=3))
    if kind == "array" and depth < 2 and draw(st.booleans()):
        schema["items"] = draw(schemas(depth + 1))
    if kind == "object" and depth < 2:
        names = draw(st.lists(st.sampled_from("abcd"), unique=True, max_size=3))
        schema["properties"] = {name: draw(schemas(depth + 1)) for name in names}
        schema["required"] = draw(st.lists(st.sampled_from("abcd"), unique=True, max_size=2))
        schema["additionalProperties"] = draw(st.booleans())
    if depth == 0 and draw(st.booleans()):
        schema = {"$defs": {"inner": schema}, "$ref": "#/$defs/inner"}
    return schema


def tool_schema(schema: dict[str, Any]) -> ToolSchema:
    return ToolSchema(schema, SchemaBounds(), server="s", tool="t")


@settings(max_examples=400, deadline=None)
@given(schemas(), JSON)
def test_the_compiled_validator_agrees_with_jsonschema(schema: dict[str, Any], value: Any) -> None:
    checked = tool_schema(schema)
    reference = server_schema_validator(schema).is_valid(value)
    assert (asyncio.run(checked.problems(value, 64)) is None) == reference


def test_a_plain_schema_is_compiled_and_its_refusals_are_described_by_jsonschema() -> None:
    checked = tool_schema({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    assert asyncio.run(checked.problems({"n": 1}, 64)) is None
    assert checked._compiled  # the fast validator took it
    assert asyncio.run(checked.problems({"n": "x"}, 64)) == "n: 'x' is not of type 'integer'"


def test_schemas_it_must_not_take_are_left_to_jsonschema() -> None:
    patterned = tool_schema({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}})
    remote = tool_schema({"type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}}})
    draft7 = tool_schema({"type": "array", "items": [{"type": "string"}]})  # malformed in 2020-12: rs refuses it
    assert asyncio.run(patterned.problems({"a": "y"}, 64)) == "a: 'y' does not match '^x'"
    assert asyncio.run(remote.problems({"a": 5}, 64)) is None  # the unresolvable part counts as {}
    assert asyncio.run(draft7.problems([1], 64)) is None  # checks nothing (and says so): the server checks
    assert (patterned._compiled, draft7._compiled) == (False, False)
    assert remote._compiled  # compiled without the reference, which was dropped: nothing is fetched


def test_too_deep_arguments_are_refused_before_either_validator() -> None:
    checked = tool_schema({"type": "object"})
    deep: Any = {}
    for _ in range(70):
        deep = {"a": deep}
    problem = asyncio.run(checked.problems(deep, 64))
    assert problem is not None
    assert "deeper" in problem or "nest" in problem
