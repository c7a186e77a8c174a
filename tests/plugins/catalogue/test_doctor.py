"""`mcpbridge doctor` against a real server over streamable HTTP whose tools have schemas a
provider refuses: what it prints, per tool and provider, its exit status, and that server
text cannot drive the terminal."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.server.lowlevel import Server
from mcpbridge_cli import main as cli

from tests.cli.test_cli_imports import HEAVY, imported_by

STRICT = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": False}
SHAPES = {
    "lookup": {
        "type": "object",
        "oneOf": [
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
            {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]},
        ],
    },
    "tag": {**STRICT, "properties": {"q": {"type": "string"}, "\x1b[2Jwho": {"type": "array"}}},
    "tree": {**STRICT, "properties": {"q": {"$ref": "#"}}},
    "search": STRICT,
}


def server(shapes: dict[str, dict[str, Any]]) -> Any:
    """A server listing one tool per shape, with that input schema exactly as written."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tools = [types.Tool(name=name, input_schema=schema) for name, schema in shapes.items()]
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    return Server("shapes", on_list_tools=list_tools, on_call_tool=call_tool).streamable_http_app()


@pytest.fixture
def config(tmp_path: Path, mcp_http_url: Callable[[Any], str]) -> Callable[..., str]:
    """`config(**servers)`: a config file naming each server (a dict of shapes) by its URL."""

    def write(**servers: dict[str, dict[str, Any]]) -> str:
        path = tmp_path / f"{'-'.join(servers)}.toml"
        tables = [
            f"[servers.{name}]\nurl = {json.dumps(mcp_http_url(server(shapes)))}" for name, shapes in servers.items()
        ]
        path.write_text("\n".join([*tables, "[plugins]\nautoload = false\n"]))
        return str(path)

    return write


def test_doctor_shows_what_openai_refuses_and_exits_1(config: Callable[..., str], capsys: Any) -> None:
    assert cli(["doctor", "--provider", "openai", "--config", config(shapes=SHAPES)]) == 1
    lossy = " (lossy: the model may send what the server refuses; the server's schema still checks every call)"
    unstrict = (
        "none: the tool is bound without strict (LangChain's default); the server's schema still checks every call"
    )
    assert capsys.readouterr().out.splitlines() == [
        "shapes/lookup  as 'lookup'",
        "  openai:",
        "    refused  oneOf at the top level",
        f"             fix: its branches merged into one object{lossy}",
        "    degraded strict mode needs additionalProperties: false on every object (top level); every property "
        "required (top level)",
        f"             fix: {unstrict}",
        "shapes/tag  as 'tag'",
        "  openai:",
        "    refused  /properties/\\x1b[2Jwho: an array without items",
        "             fix: items: {} (any item)",
        "    degraded strict mode needs every property required (top level)",
        f"             fix: {unstrict}",
        "shapes/tree  as 'tree'",
        "  openai:",
        '    degraded /properties/q/properties/q: $ref "#" is recursive: LangChain cuts it',
        "             fix: none: a recursive $ref cannot be inlined; cut where it repeats (any value fits there)",
        "2 refused, 3 degraded",
    ]


def test_doctor_exits_0_when_nothing_is_refused(config: Callable[..., str], capsys: Any) -> None:
    loose = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert cli(["doctor", "--config", config(calm={"search": loose})]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "0 refused, 1 degraded"  # OpenAI's strict mode
    assert cli(["doctor", "--provider", "anthropic", "--config", config(calm={"search": STRICT})]) == 0
    assert capsys.readouterr().out == "every tool fits\n"


def test_doctor_json_names_server_tool_provider_and_fix(config: Callable[..., str], capsys: Any) -> None:
    assert cli(["doctor", "--json", "--config", config(shapes={"tag": SHAPES["tag"]})]) == 1
    printed = capsys.readouterr().out
    assert "\x1b" not in printed
    rows = json.loads(printed)
    assert {row["provider"] for row in rows} == {"openai", "gemini"}  # Anthropic takes it
    items = [row for row in rows if row["problem"] == "an array without items"]
    assert [(row["server"], row["tool"], row["name"], row["provider"], row["path"]) for row in items] == [
        ("shapes", "tag", "tag", "openai", "/properties/\x1b[2Jwho"),
        ("shapes", "tag", "tag", "gemini", "/properties/\x1b[2Jwho"),
    ]


def test_help_lists_doctor_without_importing_heavy_modules() -> None:
    modules, out = imported_by("doctor", "--help")
    assert "--provider {openai,anthropic,gemini}" in out
    assert sorted(modules.intersection(HEAVY)) == []
