"""LangChain tools from MCP tools, as langchain-mcp-adapters builds them.

`load_mcp_tools(session)` takes any session: one of a `MultiServerMCPClient`'s (from
`client.session(name)`) gives mcpbridge tools on its shared, persistent session; any other
(an mcp `ClientSession` you opened, or an object with its methods) gives tools that call
through that session, as the adapters' do. Without a session, a `connection` gets a bridge
of its own (as a client's), kept open. Every argument applies on every path.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool
from mcp.types import Tool

from mcpbridge_adapters.callbacks import Callbacks
from mcpbridge_adapters.convert import MCPToolArtifact, _convert_call_tool_result
from mcpbridge_adapters.direct import direct_tool
from mcpbridge_adapters.fastmcp import to_fastmcp
from mcpbridge_adapters.interceptors import ToolCallInterceptor
from mcpbridge_adapters.sessions import Connection
from mcpbridge_adapters.shared import ClientBridge, Session, client_server, list_pages, requests_to

__all__ = [
    "MCPToolArtifact",
    "_convert_call_tool_result",
    "convert_mcp_tool_to_langchain_tool",
    "load_mcp_tools",
    "to_fastmcp",
]

_NEITHER = "Either a session or a connection config must be provided"


def convert_mcp_tool_to_langchain_tool(
    session: Session | None,
    tool: Tool,
    *,
    connection: Connection | None = None,
    callbacks: Callbacks | None = None,
    tool_interceptors: list[ToolCallInterceptor] | None = None,
    server_name: str | None = None,
    tool_name_prefix: bool = False,
    handle_tool_errors: bool = True,
) -> BaseTool:
    """One MCP tool as a LangChain tool calling through `session` (a client's shared one is
    reached through its bridge), or through a new session of `connection` per call. Raises
    `ValueError` for a tool whose input schema is over mcpbridge's bounds (`model_schema`)."""
    if session is None and connection is None:
        raise ValueError(_NEITHER)
    converted = direct_tool(
        requests_to(session) if session is not None else None,
        tool,
        connection=connection,
        callbacks=callbacks,
        tool_interceptors=tool_interceptors,
        server_name=server_name,
        tool_name_prefix=tool_name_prefix,
        handle_tool_errors=handle_tool_errors,
    )
    if converted is None:
        raise ValueError(
            f"MCP tool {tool.name!r} cannot be given to a model: its input schema costs more than "
            "mcpbridge's schema bounds (the warning just logged says which)"
        )
    return converted


async def load_mcp_tools(
    session: Session | None,
    *,
    connection: Connection | None = None,
    callbacks: Callbacks | None = None,
    tool_interceptors: list[ToolCallInterceptor] | None = None,
    server_name: str | None = None,
    tool_name_prefix: bool = False,
    handle_tool_errors: bool = True,
) -> list[BaseTool]:
    """The tools of one server (see the module's docstring for which session does what)."""
    if session is None and connection is None:
        raise ValueError(_NEITHER)
    where = client_server(session)
    if session is None:
        name = server_name or "server"
        where = ClientBridge({name: connection}, callbacks or Callbacks()).server(name)
    if where is not None:
        return await where.client.tools(
            where.server_name,
            callbacks=callbacks,
            tool_interceptors=tool_interceptors or [],
            prefix=(server_name or where.server_name) if tool_name_prefix and (server_name or session) else None,
            handle_tool_errors=handle_tool_errors,
        )
    tools: list[Any] = await list_pages(session, "list_tools", "tools")
    converted = (
        direct_tool(
            session,
            tool,
            connection=connection,
            callbacks=callbacks,
            tool_interceptors=tool_interceptors,
            server_name=server_name,
            tool_name_prefix=tool_name_prefix,
            handle_tool_errors=handle_tool_errors,
        )
        for tool in tools
    )
    return [tool for tool in converted if tool is not None]  # a tool over the schema bounds is left out
