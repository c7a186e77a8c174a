"""What each provider refuses or degrades in a tool's input schema, and the schema fitted to it:
a fitted schema leaves the provider nothing to refuse, says to the model what the server's
schema says wherever no keyword had to be dropped, and fitting never changes its input."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from mcpbridge_catalogue.fixes import PROVIDERS, Finding, Provider, findings, fitted_schema

from mcpbridge import schema_problems

NAMES = st.sampled_from(["a", "b", "c-d", "e_f"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8,
)
SCALARS = ["string", "integer", "number", "boolean", "null"]


def fits(schema: dict[str, Any], value: Any) -> bool:
    return schema_problems(schema, value) is None


def as_json_schema(node: Any) -> Any:
    """A fitted Gemini schema read as JSON Schema: OpenAPI's `nullable: true` also lets null in."""
    if isinstance(node, list):
        return [as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    plain = {key: value if key in ("enum", "default") else as_json_schema(value) for key, value in node.items()}
    return {"anyOf": [plain, {"type": "null"}]} if plain.pop("nullable", False) else plain


def refused(name: str, schema: dict[str, Any], provider: Provider) -> list[Finding]:
    return [finding for finding in findings(name, schema, provider) if finding.severity == "refused"]


# Schemas with keywords none of the three providers drops: a fitted one says the same.
@st.composite
def kept(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    kind = draw(st.sampled_from([*SCALARS, "array", "object", "union"] if depth < 3 else SCALARS))
    if kind == "union":
        return {"anyOf": draw(st.lists(kept(depth + 1), min_size=1, max_size=3))}
    if kind == "array":
        return {"type": "array", "items": draw(kept(depth + 1))}
    if kind == "object":
        names = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
        required = draw(st.lists(st.sampled_from(names), unique=True))
        return {"type": "object", "properties": {n: draw(kept(depth + 1)) for n in names}, "required": required}
    if kind == "string" and draw(st.booleans()):
        return {"type": "string", "enum": draw(st.lists(st.text(max_size=3), min_size=1, max_size=3, unique=True))}
    if kind != "null" and draw(st.booleans()):
        return {"type": [kind, "null"]}
    return {"type": kind}


@st.composite
def tool_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """A tool's input schema of `kept` parts, some of them behind a (finite) `$ref`."""
    defs = draw(st.dictionaries(st.sampled_from(["A", "B"]), kept(2), max_size=2))
    names = draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))
    refs = [{"$ref": f"#/$defs/{name}"} for name in defs]
    properties = {name: draw(st.sampled_from(refs) | kept(1) if refs else kept(1)) for name in names}
    required = draw(st.lists(st.sampled_from(names), unique=True))
    return {"type": "object", "properties": properties, "required": required, **({"$defs": defs} if defs else {})}


@st.composite
def values_of(draw: st.DrawFn, schema: Any, root: dict[str, Any]) -> Any:
    """A value `schema` (a `kept` one, under `root`) accepts."""
    if "$ref" in schema:
        return draw(values_of(root["$defs"][schema["$ref"].rsplit("/", 1)[1]], root))
    if "anyOf" in schema:
        return draw(values_of(draw(st.sampled_from(schema["anyOf"])), root))
    kind = schema["type"]
    if isinstance(kind, list):
        return draw(values_of({**schema, "type": draw(st.sampled_from(kind))}, root))
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    if kind == "array":
        return draw(st.lists(values_of(schema["items"], root), max_size=2))
    if kind == "object":
        properties = schema["properties"]
        optional = {name: values_of(sub, root) for name, sub in properties.items() if name not in schema["required"]}
        return draw(
            st.fixed_dictionaries({n: values_of(properties[n], root) for n in schema["required"]}, optional=optional)
        )
    scalars = {"string": st.text(max_size=3), "integer": st.integers(-3, 3), "number": st.floats(-3, 3)}
    return draw(scalars.get(kind, st.booleans() if kind == "boolean" else st.none()))


# Schemas with anything in them: refs (recursive ones too), combinators, formats, keywords
# some provider has never heard of.
LEAVES = st.fixed_dictionaries(
    {"type": st.sampled_from([*SCALARS, "array", "object", ["string", "null"], ["integer", "string"]])},
    optional={
        "format": st.sampled_from(["uri", "date-time", "email", "int64", "float"]),
        "enum": st.lists(JSON, min_size=1, max_size=3),
        "const": JSON,
        "default": JSON,
        "minimum": st.integers(0, 3),
        "exclusiveMaximum": st.integers(4, 9),
        "additionalProperties": st.booleans() | st.just({"type": "string"}),
        "$comment": st.text(max_size=3),
        "propertyNames": st.just({"pattern": "^[a-z]+$"}),
        "$ref": st.sampled_from(["#/$defs/Node", "#", "#/$defs/missing", "https://example.invalid/s.json"]),
    },
)
COMBINATORS = st.sampled_from(["anyOf", "oneOf", "allOf"])
ANY = st.recursive(
    LEAVES,
    lambda inner: (
        st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(NAMES, inner, max_size=3)})
        | st.fixed_dictionaries({"type": st.just("array")}, optional={"items": inner | st.lists(inner, max_size=2)})
        | st.dictionaries(
            st.sampled_from(["anyOf", "oneOf", "allOf"]), st.lists(inner, min_size=1, max_size=3), min_size=1
        )
    ),
    max_leaves=10,
)
ROOTS = st.builds(
    lambda body, defs, top: {**body, "$defs": {"Node": defs}, **top},
    ANY,
    ANY,
    st.fixed_dictionaries({}, optional={"$schema": st.just("http://json-schema.org/draft-07/schema#")}),
)


@settings(max_examples=200)
@given(ROOTS, st.sampled_from(PROVIDERS))
def test_a_fitted_schema_leaves_nothing_to_refuse_and_its_input_unchanged(
    schema: dict[str, Any], provider: Provider
) -> None:
    before = copy.deepcopy(schema)
    fitted = fitted_schema(schema, provider)
    assert schema == before
    assert fitted == fitted_schema(schema, provider)
    assert refused("tool", fitted, provider) == []
    assert findings("tool", schema, provider) == findings("tool", before, provider)


KEYWORDS = st.sampled_from(
    [
        *("type", "properties", "required", "items", "anyOf", "oneOf", "allOf", "$ref", "$defs", "enum", "const"),
        *("format", "additionalProperties", "not", "prefixItems", "description", "nullable", "a"),
    ]
)
JUNK = st.recursive(
    st.dictionaries(KEYWORDS, JSON, max_size=3),
    lambda inner: st.dictionaries(KEYWORDS, inner | st.lists(inner, max_size=2) | JSON, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200)
@given(JUNK, st.sampled_from(PROVIDERS))
def test_a_schema_of_anything_is_fitted_without_an_error(schema: dict[str, Any], provider: Provider) -> None:
    """A server may send any JSON where a schema should be: the doctor and the catalogue still work."""
    assert refused("tool", fitted_schema(schema, provider), provider) == []
    assert all(isinstance(finding, Finding) for finding in findings("tool", schema, provider))


@settings(max_examples=200)
@given(st.data(), tool_schemas(), st.sampled_from(PROVIDERS))
def test_where_nothing_is_dropped_the_fitted_schema_takes_the_same_values(
    data: st.DataObject, schema: dict[str, Any], provider: Provider
) -> None:
    fitted = as_json_schema(fitted_schema(schema, provider))
    assert "$ref" not in str(fitted)
    valid = data.draw(values_of(schema, schema))
    assert fits(schema, valid)
    assert fits(fitted, valid)
    anything = data.draw(st.dictionaries(NAMES, JSON, max_size=4))
    assert fits(fitted, anything) == fits(schema, anything)


def only(found: list[Finding]) -> Finding:
    assert len(found) == 1, found
    return found[0]


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_top_level_combinator_is_refused_and_merged_into_one_object(provider: Provider) -> None:
    schema = {
        "oneOf": [
            {**obj(id={"type": "integer"}, full={"type": "boolean"}), "required": ["id"]},
            {**obj(id={"type": "string"}), "required": ["id"]},
        ]
    }
    finding = only(refused("t", schema, provider))
    assert (finding.path, finding.problem) == ("", "oneOf at the top level")
    assert finding.fix.startswith("its branches merged into one object (lossy")
    fitted = fitted_schema(schema, provider)
    assert fitted["type"] == "object"
    assert fitted["required"] == ["id"]
    assert fitted["properties"]["id"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert '"oneOf"' not in str(fitted)
    assert "the arguments must match oneOf" in fitted["description"]


def test_an_all_of_at_the_top_level_requires_what_every_branch_requires() -> None:
    schema = {"allOf": [{**obj(a={"type": "string"}), "required": ["a"]}, {**obj(b={}), "required": ["b"]}]}
    fitted = fitted_schema(schema, "anthropic")
    assert (fitted["required"], sorted(fitted["properties"])) == (["a", "b"], ["a", "b"])


def test_openai_refuses_an_array_without_items_and_a_top_level_enum() -> None:
    schema = {**obj(tags={"type": "array"}), "enum": [{"tags": []}]}
    assert [(f.path, f.problem) for f in refused("t", schema, "openai")] == [
        ("/properties/tags", "an array without items"),
        ("", "enum at the top level"),
    ]
    fitted = fitted_schema(schema, "openai")
    assert fitted["properties"]["tags"] == {"type": "array", "items": {}}
    assert "enum" not in fitted
    assert refused("t", schema, "anthropic") == []


def test_openai_strict_mode_is_one_degraded_finding_naming_each_rule() -> None:
    schema = {**obj(a={"type": "string", "format": "uri", "default": "x"}, b={"type": "integer"}), "required": ["b"]}
    finding = only(findings("t", schema, "openai"))
    assert finding.severity == "degraded"
    assert finding.problem == (
        "strict mode needs additionalProperties: false on every object (top level); every property required "
        '(top level); no default (/properties/a); no format "uri" (/properties/a)'
    )
    assert finding.fix.startswith("none: the tool is bound without strict")
    strict = {**obj(a={"type": "string", "format": "date-time"}), "required": ["a"], "additionalProperties": False}
    assert findings("t", strict, "openai") == []
    wide = {**obj(**{f"p{n}": {"type": "string"} for n in range(5001)}), "additionalProperties": False}
    wide["required"] = list(wide["properties"])
    assert only(findings("t", wide, "openai")).problem == "strict mode needs at most 5000 properties"


@pytest.mark.parametrize(
    ("provider", "name", "fits_it"),
    [
        ("openai", "get_weather-2", True),
        ("openai", "get.weather", False),
        ("anthropic", "x" * 65, False),
        ("gemini", "files.read:v2", True),
        ("gemini", "2fa_codes", False),
    ],
)
def test_tool_names_outside_the_providers_pattern_are_refused(provider: Provider, name: str, fits_it: bool) -> None:
    found = refused(name, obj(), provider)
    assert found == [] if fits_it else [f.path for f in found] == ["name"]


def test_a_finite_ref_is_inlined_and_a_recursive_one_cut_where_it_repeats() -> None:
    schema = {
        **obj(tree={"$ref": "#/$defs/Node"}, user={"$ref": "#/$defs/User"}),
        "$defs": {"Node": obj(children={"type": "array", "items": {"$ref": "#/$defs/Node"}}), "User": obj()},
    }
    for provider in PROVIDERS:
        fitted = fitted_schema(schema, provider)
        assert "$ref" not in str(fitted)
        assert "$defs" not in fitted
        cut = fitted["properties"]["tree"]["properties"]["children"]["items"]
        assert cut == {"description": "(the same shape as #/$defs/Node, recursively)"}
    recursive = [f for f in findings("t", schema, "gemini") if "recursive" in f.problem]
    assert [(f.severity, f.path, f.fix[:5]) for f in recursive] == [
        ("refused", "/properties/tree/properties/children/items", "none:")
    ]
    assert only(findings("t", schema, "anthropic")).severity == "degraded"


def test_a_ref_that_resolves_nowhere_is_left_out() -> None:
    schema = obj(a={"$ref": "https://example.invalid/a.json", "description": "A"}, b={"$ref": "#/$defs/none"})
    finding = refused("t", schema, "anthropic")[0]
    assert finding.problem.endswith("points outside the schema or to nothing: no provider follows it")
    assert fitted_schema(schema, "anthropic")["properties"] == {"a": {"description": "A"}, "b": {}}


def test_anthropic_takes_draft_2020_12_so_a_tuple_becomes_prefix_items() -> None:
    schema = obj(point={"type": "array", "items": [{"type": "number"}] * 2, "additionalItems": False})
    assert only(refused("t", schema, "anthropic")).problem == "items is a list (a tuple before draft 2020-12)"
    point = fitted_schema(schema, "anthropic")["properties"]["point"]
    assert point == {"type": "array", "prefixItems": [{"type": "number"}] * 2, "items": False}


def test_gemini_takes_its_openapi_subset() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        **obj(
            when={"type": "string", "format": "date-time"},
            site={"type": "string", "format": "uri"},
            note={"type": ["string", "null"]},
            mode={"const": "fast"},
            level={"type": "integer", "enum": [1, 2]},
            labels={"type": "object", "additionalProperties": {"type": "string"}},
            count={"type": "integer", "exclusiveMinimum": 0},
            pick={"oneOf": [{"type": "string"}, {"type": "integer"}]},
        ),
    }
    assert {(f.path, f.problem) for f in findings("t", schema, "gemini")} == {
        ("", "keywords Gemini does not know: $schema"),
        ("/properties/site", 'format "uri" for type "string"'),
        ("/properties/note", 'type is a list ["string","null"]'),
        ("/properties/mode", "const"),
        ("/properties/level", "an enum of values that are not strings"),
        ("/properties/labels", "keywords Gemini does not know: additionalProperties"),
        ("/properties/labels", "an object that names no properties"),
        ("/properties/count", "keywords Gemini does not know: exclusiveMinimum"),
        ("/properties/pick", "oneOf"),
    }
    fitted = fitted_schema(schema, "gemini")
    assert "$schema" not in fitted
    assert fitted["properties"] == {
        "when": {"type": "string", "format": "date-time"},
        "site": {"type": "string", "description": '(format: "uri")'},
        "note": {"type": "string", "nullable": True},
        "mode": {"enum": ["fast"]},
        "level": {"type": "integer", "description": "(one of [1,2])"},
        "labels": {"description": '(also: {"additionalProperties":{"type":"string"}}) (a JSON object)'},
        "count": {"type": "integer", "description": '(also: {"exclusiveMinimum":0})'},
        "pick": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    }


def test_an_unknown_provider_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown provider 'mistral': use one of openai, anthropic, gemini"):
        fitted_schema(obj(), "mistral")  # type: ignore[arg-type]
