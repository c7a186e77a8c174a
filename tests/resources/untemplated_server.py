"""A low-level server that lists and reads resources and has no handler for
`resources/templates/list`, so the SDK answers it with -32601 (method not found), as
mcp-server-sqlite and @modelcontextprotocol/server-postgres do. Run as a module for stdio
(`python -m tests.resources.untemplated_server [OFFER]`). `offer="templates"` turns it
around: templates and no `resources/list`; `offer="nothing"`: -32601 to both lists."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

URI = "memo://insights"
TEMPLATE = "rows://{table}/{id}"


def build(offer: str = "resources") -> Server[Any]:
    async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(name="insights", uri=URI, mime_type="text/plain")])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        contents = types.TextResourceContents(uri=str(params.uri), mime_type="text/plain", text="no insights yet")
        return types.ReadResourceResult(contents=[contents])

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[])

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        row = types.ResourceTemplate(name="row", uri_template=TEMPLATE)
        return types.ListResourceTemplatesResult(resource_templates=[row])

    if offer == "nothing":
        return Server(offer, on_list_tools=list_tools)
    if offer == "templates":
        return Server(offer, on_list_resource_templates=list_templates, on_list_tools=list_tools)
    return Server(offer, on_list_resources=list_resources, on_read_resource=read_resource, on_list_tools=list_tools)


async def _serve_stdio() -> None:
    server = build(*sys.argv[1:2])
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(_serve_stdio)
