"""MCP servers whose listings cost the client: input schemas that explode when their `$ref`s
are followed, nest too deep or are too large, a recursive one that is legitimate, and a
server with thousands of tools. Run as a script for stdio:
`python -m tests.security.costly_servers [bombs | many N]`."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def doubling(depth: int) -> dict[str, Any]:
    """About 1 KB at depth 15: each level refers twice to the one below, so following the
    references visits 2**depth leaves."""
    defs: dict[str, Any] = {"a0": {"type": "string"}}
    for level in range(1, depth + 1):
        below = {"$ref": f"#/$defs/a{level - 1}"}
        defs[f"a{level}"] = {"allOf": [below, below]}
    return {"type": "object", "$defs": defs, "properties": {"x": {"$ref": f"#/$defs/a{depth}"}}}


def chain(length: int) -> dict[str, Any]:
    """An object holding an object holding ... `length` deep, one `$ref` per level."""
    defs: dict[str, Any] = {"n0": {"type": "string"}}
    for level in range(1, length + 1):
        defs[f"n{level}"] = {"type": "object", "properties": {"next": {"$ref": f"#/$defs/n{level - 1}"}}}
    return {"type": "object", "$defs": defs, "properties": {"x": {"$ref": f"#/$defs/n{length}"}}}


TREE: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "node": {
            "type": "object",
            "properties": {"value": {"type": "integer"}, "child": {"$ref": "#/$defs/node"}},
            "additionalProperties": False,
        }
    },
    "properties": {"tree": {"$ref": "#/$defs/node"}},
    "required": ["tree"],
}
"""A recursive schema: legitimate, and it must stay usable."""

ROWS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"type": "object", "properties": {"kind": {"const": kind}, "n": {"type": "integer"}}}
                    for kind in ("a", "b", "c", "d", "e", "f")
                ]
            },
        },
        "unique": {"type": "array", "uniqueItems": True},
    },
}
"""Small and cheap to list, but checking many rows against it takes seconds."""


DANGLING: dict[str, Any] = {
    "type": "object",
    "$defs": {"count": {"type": "integer"}},
    "properties": {
        "n": {"$ref": "#/$defs/count"},
        "missing": {"$ref": "#/$defs/nowhere"},
        "named": {"$ref": "#count"},
        "remote": {"$ref": "http://127.0.0.1:9/schema.json"},
    },
}
"""References LangChain cannot inline (it raises on each, in every `bind_tools`)."""


def bomb_schemas() -> dict[str, dict[str, Any]]:
    return {
        "doubling": doubling(15),
        "chain": chain(40),
        "huge": {"type": "object", "properties": {"x": {"type": "string", "description": "d" * 300_000}}},
        "tree": TREE,
        "rows": ROWS,
        "dangling": DANGLING,
        "echo": {"type": "object"},
    }


def small_tools(count: int) -> list[types.Tool]:
    """`count` small tools: about 125 bytes each in `tools/list`."""
    schema = {"type": "object", "properties": {"x": {"type": "string"}}}
    return [types.Tool(name=f"tool_{i:05d}", description=f"Small tool {i}.", input_schema=schema) for i in range(count)]


def build(tools: list[types.Tool]) -> Server[Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        text = json.dumps({"tool": params.name, "keys": sorted(arguments)}, ensure_ascii=True)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("costly", on_list_tools=list_tools, on_call_tool=call_tool)


def bombs() -> Server[Any]:
    return build([types.Tool(name=name, input_schema=schema) for name, schema in bomb_schemas().items()])


def many(count: int) -> Server[Any]:
    return build(small_tools(count))


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    kind = sys.argv[1] if len(sys.argv) > 1 else "bombs"
    anyio.run(_serve_stdio, many(int(sys.argv[2])) if kind == "many" else bombs())
