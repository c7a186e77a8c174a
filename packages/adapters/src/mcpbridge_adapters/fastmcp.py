"""`to_fastmcp`: a LangChain tool as a tool of an mcp 2.x `MCPServer` (FastMCP's successor),
e.g. `MCPServer("name", tools=[to_fastmcp(tool)])`. For whole servers of LangChain tools,
mcpbridge-serve's `to_mcp_server` does more (structured results, tool errors)."""

from __future__ import annotations

from typing import Any, get_args

from langchain_core.tools import BaseTool, InjectedToolArg
from langchain_core.tools.base import get_all_basemodel_annotations
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from pydantic import BaseModel, create_model

__all__ = ["LangChainMCPTool", "to_fastmcp"]


class LangChainMCPTool(Tool):
    """An `MCPServer` tool that can also be run by hand, without a request context
    (`await tool.run(arguments={...})`, as FastMCP 1.x tools could)."""

    async def run(
        self, arguments: dict[str, Any], context: Context[Any, Any] | None = None, convert_result: bool = False
    ) -> Any:
        return await super().run(arguments, context, convert_result)  # type: ignore[arg-type]


def _injected_args(tool: BaseTool) -> list[str]:
    def injected(annotation: Any) -> bool:
        return any(
            isinstance(arg, InjectedToolArg) or (isinstance(arg, type) and issubclass(arg, InjectedToolArg))
            for arg in get_args(annotation)[1:]
        )

    annotations = get_all_basemodel_annotations(tool.args_schema)
    return [name for name, annotation in annotations.items() if injected(annotation)]


def to_fastmcp(tool: BaseTool) -> LangChainMCPTool:
    """`tool` (with a pydantic args schema, no injected arguments) as an `MCPServer` tool."""
    schema = tool.args_schema
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        raise TypeError(
            "Tool args_schema must be a subclass of pydantic.BaseModel. Tools with dict args schema are not supported."
        )
    if _injected_args(tool):
        raise NotImplementedError("LangChain tools with injected arguments are not supported")
    call_schema = tool.tool_call_schema
    if not (isinstance(call_schema, type) and issubclass(call_schema, BaseModel)):
        raise TypeError(f"tool {tool.name!r}: its tool call schema is not a pydantic model")
    fields: dict[str, Any] = {name: (info.annotation, info) for name, info in call_schema.model_fields.items()}
    arg_model = create_model(f"{tool.name}Arguments", __base__=ArgModelBase, **fields)

    async def fn(**arguments: Any) -> Any:
        return await tool.ainvoke(arguments)

    return LangChainMCPTool(
        fn=fn,
        name=tool.name,
        description=tool.description,
        parameters=call_schema.model_json_schema(),
        fn_metadata=FuncMetadata(arg_model=arg_model),
        is_async=True,
        title=None,
        context_kwarg=None,
        annotations=None,
    )
