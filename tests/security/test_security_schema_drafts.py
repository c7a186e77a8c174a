"""Every JSON Schema draft a server may declare is checked, by that draft's rules: the same bad
arguments are refused under draft-04, -06, -07, 2019-09 and 2020-12 (zod-built TypeScript
SDK servers send draft-07), before the server is called. An unknown `$schema` is checked as
2020-12 with one warning; a `$schema` inside the schema never loosens the check."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import mcp.types as types
import pytest
from hypothesis import given, settings, strategies as st
from langchain_core.messages import ToolMessage
from mcp import Client
from mcp.server.lowlevel import Server

from mcpbridge import MCPBridge, Settings, call_tool_checked, schema_problems
from mcpbridge._tools.schemas import ToolSchema
from tests.core.test_schema_checks import JSON, reference_validity, schemas

DRAFTS = {
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft6": "http://json-schema.org/draft-06/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019": "https://json-schema.org/draft/2019-09/schema",
    "draft2020": "https://json-schema.org/draft/2020-12/schema",
}
UNKNOWN = "https://example.com/schemas/my-dialect"

PLAIN = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
    "required": ["name"],
}
PATTERNED = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[a-z]+$"}}}
OWN_KEYWORDS: dict[str, dict[str, Any]] = {
    "draft4": {"properties": {"n": {"type": "number", "maximum": 10, "exclusiveMaximum": True}}},
    "draft6": {"properties": {"t": {"type": "array", "items": [{"type": "string"}]}}},
    "draft7": {"properties": {"t": {"type": "array", "items": [{"type": "string"}]}}},
    "draft2019": {"properties": {"t": {"type": "array", "items": [{"type": "string"}]}}},
    "draft2020": {"properties": {"t": {"type": "array", "prefixItems": [{"type": "string"}]}}},
}
"""A keyword in the form only its own draft gives it (draft-04's boolean `exclusiveMaximum`,
the array `items` before 2020-12, `prefixItems` since)."""
OWN_BAD: dict[str, dict[str, Any]] = {"draft4": {"n": 10}}
OWN_BAD_DEFAULT: dict[str, Any] = {"t": [1]}
EMBEDDED = {
    "type": "object",
    "$defs": {"old": {"$schema": DRAFTS["draft7"], "$id": "urn:example:old", **PLAIN}},
    "properties": {"inner": {"$ref": "urn:example:old"}},
    "required": ["inner"],
}
"""A 2020-12 schema embedding a draft-07 resource: jsonschema-rs alone accepts anything there."""


def dialect(schema: dict[str, Any], uri: str) -> dict[str, Any]:
    return {"$schema": uri, "type": "object", **schema}


def input_schemas() -> dict[str, dict[str, Any]]:
    tools = {}
    for draft, uri in DRAFTS.items():
        tools[f"plain_{draft}"] = dialect(PLAIN, uri)
        tools[f"patterned_{draft}"] = dialect(PATTERNED, uri)
        tools[f"own_{draft}"] = dialect(OWN_KEYWORDS[draft], uri)
    tools["unknown"] = dialect(PLAIN, UNKNOWN)
    tools["embedded"] = EMBEDDED
    return tools


def output_schemas() -> dict[str, dict[str, Any]]:
    return {f"out_{draft}": dialect(PLAIN, uri) for draft, uri in DRAFTS.items()}


def build(called: list[str]) -> Server[Any]:
    """Takes any arguments (the bridge alone checks them) and records each call; each
    `out_*` tool answers with structured content that lacks its required `name`."""
    inputs, outputs = input_schemas(), output_schemas()

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        listed = [types.Tool(name=name, input_schema=schema) for name, schema in inputs.items()]
        listed += [
            types.Tool(name=name, input_schema={"type": "object"}, output_schema=s) for name, s in outputs.items()
        ]
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        called.append(params.name)
        structured = {"count": 1} if params.name.startswith("out_") else None
        text = json.dumps(structured or params.arguments or {})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured)

    return Server("drafts", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.fixture
async def bridge_and_calls() -> AsyncIterator[tuple[MCPBridge, list[str]]]:
    called: list[str] = []
    async with MCPBridge({"drafts": {"server": build(called)}}, plugins=[]) as bridge:
        yield bridge, called


async def invoke(bridge: MCPBridge, name: str, args: dict[str, Any]) -> ToolMessage:
    tools = {tool.name: tool for tool in await bridge.list_tools()}
    message = await tools[name].ainvoke({"type": "tool_call", "name": name, "args": args, "id": f"call-{name}"})
    assert isinstance(message, ToolMessage)
    return message


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(block["text"] for block in content)  # type: ignore[index]


@pytest.mark.parametrize("draft", DRAFTS)
async def test_the_same_bad_arguments_are_refused_under_every_draft(
    draft: str, bridge_and_calls: tuple[MCPBridge, list[str]]
) -> None:
    bridge, called = bridge_and_calls
    refused: dict[str, list[tuple[dict[str, Any], str]]] = {
        f"plain_{draft}": [({"count": 1}, '"name" is a required property'), ({"name": 5}, "name: 5 is not of type")],
        f"patterned_{draft}": [({"code": "ABC"}, 'code: "ABC" does not match "^[a-z]+$"')],
        f"own_{draft}": [(OWN_BAD.get(draft, OWN_BAD_DEFAULT), "")],
    }
    for name, cases in refused.items():
        for args, problem in cases:
            message = await invoke(bridge, name, args)
            assert message.status == "error", f"{name} took {args}"
            assert f"Invalid arguments for tool '{name}'" in text(message)
            assert problem in text(message)
    assert called == []  # the server was never asked
    accepted: list[tuple[str, dict[str, Any]]] = [
        (f"plain_{draft}", {"name": "ada", "count": 2}),
        (f"patterned_{draft}", {"code": "abc"}),
        (f"own_{draft}", {"n": 9.5} if draft == "draft4" else {"t": ["x", 1]}),
    ]
    for name, args in accepted:
        message = await invoke(bridge, name, args)
        assert message.status == "success", text(message)
    assert len(called) == 3


@pytest.mark.parametrize("draft", DRAFTS)
async def test_output_schemas_of_every_draft_are_checked(
    draft: str, bridge_and_calls: tuple[MCPBridge, list[str]]
) -> None:
    bridge, _ = bridge_and_calls
    message = await invoke(bridge, f"out_{draft}", {})
    assert message.status == "error"
    assert f'Invalid structured content returned by tool out_{draft}: "name" is a required property' in text(message)
    async with Client(build([])) as client:  # a session opened without the bridge
        listed = {tool.name: tool for tool in (await client.session.list_tools()).tools}
        with pytest.raises(RuntimeError, match='"name" is a required property'):
            await call_tool_checked(client.session, listed[f"out_{draft}"], {})


async def test_an_unknown_dialect_is_checked_as_2020_12_with_one_warning(
    bridge_and_calls: tuple[MCPBridge, list[str]], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="mcpbridge._tools.schemas")
    bridge, called = bridge_and_calls
    for args in ({"count": 1}, {"name": 1}, {"name": "x"}):
        await invoke(bridge, "unknown", args)
    assert called == ["unknown"]
    warned = [r.getMessage() for r in caplog.records if "'unknown'" in r.getMessage()]
    assert len(warned) == 1, warned
    assert repr(UNKNOWN) in warned[0]
    assert "JSON Schema 2020-12" in warned[0]


async def test_an_embedded_resource_of_another_draft_is_checked(
    bridge_and_calls: tuple[MCPBridge, list[str]],
) -> None:
    bridge, called = bridge_and_calls
    refused = await invoke(bridge, "embedded", {"inner": {"count": 1}})
    assert refused.status == "error"
    assert '"name" is a required property' in text(refused)
    assert (await invoke(bridge, "embedded", {"inner": {"name": "ada"}})).status == "success"
    assert called == ["embedded"]


@pytest.mark.parametrize("draft", DRAFTS)
def test_schemas_checked_per_value_follow_the_draft(draft: str) -> None:
    """Elicitation answers and approval edits (`schema_problems`) follow the declared draft too."""
    schema = dialect(OWN_KEYWORDS[draft], DRAFTS[draft])
    assert schema_problems(schema, OWN_BAD.get(draft, OWN_BAD_DEFAULT)) is not None
    assert schema_problems(dialect(PLAIN, DRAFTS[draft]), {"count": 1}) == '"name" is a required property'


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(DRAFTS.values())), schemas(), JSON)
def test_the_checks_agree_with_the_reference_implementation_under_every_draft(
    uri: str, schema: dict[str, Any], value: Any
) -> None:
    schema = {"$schema": uri, **schema}
    checked = ToolSchema(schema, Settings().schema_bounds(), server="s", tool="t")
    assert (checked.problems(value, 64) is None) == reference_validity(schema, value)


BOUNDED = {"type": "string", "pattern": "^(a+)+$"}
HOSTILE = "a" * 40 + "!"
"""Hours for a backtracking engine (Python's `re`, jsonschema's own), microseconds for ours."""


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"$schema": DRAFTS["draft2020"], "properties": {"a": BOUNDED, "r": {"$ref": "#"}}}, {"r": {"a": HOSTILE}}),
        ({"properties": {"a": {"$schema": DRAFTS["draft7"], **BOUNDED}}}, {"a": HOSTILE}),
        (
            {"$schema": DRAFTS["draft7"], "properties": {"a": {"$schema": DRAFTS["draft2020"], **BOUNDED}}},
            {"a": HOSTILE},
        ),
    ],
    ids=["root-by-ref", "inner-draft", "inner-other-draft"],
)
def test_a_subschema_that_declares_a_draft_is_still_checked(schema: dict[str, Any], value: Any) -> None:
    """A `$schema` below the root changes nothing: jsonschema-rs alone reads a subschema of
    another draft as accepting anything; the root's draft holds everywhere."""
    refused = 'does not match "^(a+)+$"'
    assert refused in (schema_problems(schema, value) or "")
    checked = ToolSchema(schema, Settings().schema_bounds(), server="s", tool="t")
    assert refused in (checked.problems(value, 64) or "")
