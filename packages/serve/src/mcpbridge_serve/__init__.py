"""mcpbridge-serve: the reverse direction, LangChain tools served by an mcp 2.x `MCPServer`
(what langchain-mcp-adapters' `to_fastmcp` does).

    from mcpbridge_serve import to_mcp_server
    server = to_mcp_server([add], name="langchain-tools")  # server.run() serves it over stdio
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from langchain_core.tools import BaseTool, ToolException
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ContentBlock, ImageContent, TextContent
from pydantic import BaseModel

from mcpbridge import error_result

__all__ = ["to_mcp_server"]


def to_mcp_server(tools: Iterable[BaseTool], *, name: str = "mcpbridge", instructions: str | None = None) -> MCPServer:
    """An `MCPServer` offering `tools` (LangChain `BaseTool`s, `@tool` functions): each tool's
    input schema comes from its args schema; a string result is text content, a dict result
    is structured content (and its JSON as text), a raised `ToolException` an `isError`
    result. Serve it like any `MCPServer` (`server.run()`, streamable HTTP, in-process)."""
    server = MCPServer(name, instructions=instructions)
    for tool in tools:
        server.add_tool(_function(tool), name=tool.name, description=tool.description, structured_output=False)
    return server


def _function(tool: BaseTool) -> Callable[..., Any]:
    schema = tool.tool_call_schema
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        raise TypeError(
            f"tool {tool.name!r} has a JSON-schema dict as args schema: to serve it, give it a pydantic "
            "args_schema (or write it as a typed @tool function)"
        )
    injected = set(getattr(tool.get_input_schema(), "model_fields", {})) - set(schema.model_fields)
    if injected:
        raise TypeError(
            f"tool {tool.name!r} takes injected arguments (InjectedToolArg, ToolRuntime, state): "
            "an MCP client cannot supply them"
        )
    # Errors must reach the client as errors, not as the tool's handled output.
    own = tool.model_copy(update={"handle_tool_error": False, "handle_validation_error": False})

    async def call(**arguments: Any) -> CallToolResult:
        try:
            output = await own.ainvoke(arguments)
        except ToolException as exc:
            return error_result(str(exc))
        return _result(output)

    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(field, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[info.annotation, info])
            for field, info in schema.model_fields.items()
        ]
    )
    return call


def _result(output: Any) -> CallToolResult:
    if isinstance(output, BaseModel):
        output = output.model_dump(mode="json")
    if isinstance(output, dict):
        text = json.dumps(output, ensure_ascii=False, default=str)
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=output)
    if isinstance(output, list):
        return CallToolResult(content=[_content(item) for item in output])
    return CallToolResult(content=[_content(output)])


def _content(item: Any) -> ContentBlock:
    """A LangChain content block (or any value) as MCP content."""
    if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
        return TextContent(type="text", text=item["text"])
    if isinstance(item, dict) and item.get("type") == "image" and item.get("base64"):
        return ImageContent(type="image", data=item["base64"], mime_type=item.get("mime_type") or "image/png")
    text = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False, default=str)
    return TextContent(type="text", text=text)
