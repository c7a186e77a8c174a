"""Tool arguments are checked by jsonschema-rs: its verdicts agree with jsonschema, the
reference implementation, on every schema; its words name the argument and the problem; and
what it cannot check (a reference to another document, a part that breaks the meta-schema)
is left out, the rest still checked."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings, strategies as st
from jsonschema import validators

from mcpbridge import Settings
from mcpbridge._tools.schemas import ToolSchema

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
    return ToolSchema(schema, Settings().schema_bounds(), server="s", tool="t")


def reference_validity(schema: dict[str, Any], value: Any) -> bool:
    """jsonschema's verdict, by the draft the schema declares (it fetches nothing here: the
    generated schemas refer only inside themselves)."""
    return bool(validators.validator_for(schema)(schema).is_valid(value))


@settings(max_examples=400, deadline=None)
@given(schemas(), JSON)
def test_the_checks_agree_with_the_reference_implementation(schema: dict[str, Any], value: Any) -> None:
    assert (tool_schema(schema).problems(value, 64) is None) == reference_validity(schema, value)


def test_refusals_name_the_argument_and_the_problem() -> None:
    checked = tool_schema({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    assert checked.problems({"n": 1}, 64) is None
    assert checked.problems({"n": "x"}, 64) == 'n: "x" is not of type "integer"'
    assert checked.problems({}, 64) == '"n" is a required property'


def test_what_cannot_be_checked_is_left_out_and_the_rest_is_checked() -> None:
    patterned = tool_schema({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}})
    remote = tool_schema(
        {"type": "object", "properties": {"a": {"$ref": "https://example.invalid/a.json"}, "n": {"type": "integer"}}}
    )
    draft7 = tool_schema({"type": "array", "items": [{"type": "string"}], "maxItems": 2})  # malformed in 2020-12
    assert patterned.problems({"a": "y"}, 64) == 'a: "y" does not match "^x"'
    assert remote.problems({"a": 5}, 64) is None  # the unresolvable part counts as {}; nothing is fetched
    assert remote.problems({"n": "5"}, 64) == 'n: "5" is not of type "integer"'
    assert draft7.problems([1], 64) is None  # `items` is left out (and a warning says so)
    assert draft7.problems([1, 2, 3], 64) == "[1,2,3] has more than 2 items"


def test_too_deep_arguments_are_refused_before_the_validator() -> None:
    checked = tool_schema({"type": "object"})
    deep: Any = {}
    for _ in range(70):
        deep = {"a": deep}
    problem = checked.problems(deep, 64)
    assert problem is not None
    assert "deeper" in problem or "nest" in problem
