"""mcpbridge tools shaped as langchain-mcp-adapters shapes them: annotations (and `_meta`)
flat in `metadata`, `{"structured_content": ...}` as the artifact, `isError` results raised
as a `ToolException` that `handle_tool_errors` turns into an error ToolMessage."""

from __future__ import annotations

import contextvars
import uuid
from typing import TYPE_CHECKING, Annotated, Any, TypedDict
from weakref import WeakKeyDictionary

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool, ToolException
from mcp import ClientSession

from mcpbridge import STRUCTURED_CONTENT, MCPTool
from mcpbridge_adapters.callbacks import Callbacks
from mcpbridge_adapters.interceptors import ToolCallInterceptor
from mcpbridge_adapters.sessions import Connection

if TYPE_CHECKING:
    from mcpbridge_adapters.client import MultiServerMCPClient

__all__ = ["MCPToolArtifact", "load_mcp_tools"]

SESSIONS: WeakKeyDictionary[ClientSession, tuple[MultiServerMCPClient, str]] = WeakKeyDictionary()
"""The sessions `MultiServerMCPClient.session()` handed out, with their client and server."""

_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("mcpbridge_adapters_call_id", default=None)


def client_of(session: ClientSession) -> tuple[MultiServerMCPClient, str]:
    """The client and server name of a session `MultiServerMCPClient.session()` handed out."""
    found = SESSIONS.get(session)
    if found is None:
        raise ValueError(
            "pass a session from `MultiServerMCPClient.session(name)`: mcpbridge works on its own "
            "persistent sessions, not on a session opened elsewhere"
        )
    return found


class MCPToolArtifact(TypedDict):
    """The artifact of a tool call: the result's structured content."""

    structured_content: dict[str, Any]


class ToolCallFailed(ToolException):
    """The tool answered with an error (or mcpbridge refused the call); `content` is what
    the error ToolMessage carries."""

    def __init__(self, content: Any) -> None:
        blocks = content if isinstance(content, list) else [{"type": "text", "text": str(content)}]
        texts = [block["text"] for block in blocks if isinstance(block, dict) and block.get("type") == "text"]
        if texts:
            summary = "\n".join(texts)
        elif blocks:
            summary = f"MCP tool returned an error with no text content ({len(blocks)} non-text content block(s))."
        else:
            summary = "MCP tool returned an error with empty content."
        super().__init__(summary)
        self.content = blocks or [{"type": "text", "text": summary}]


def _failed_content(error: ToolException) -> Any:
    if isinstance(error, ToolCallFailed):
        return error.content
    raise error


class AdaptedTool(StructuredTool):
    """A StructuredTool over one mcpbridge tool; knows the id of the ToolCall it answers."""

    async def arun(self, *args: Any, tool_call_id: str | None = None, **kwargs: Any) -> Any:
        token = _CALL_ID.set(tool_call_id)
        try:
            return await super().arun(*args, tool_call_id=tool_call_id, **kwargs)
        finally:
            _CALL_ID.reset(token)


def adapt(tool: MCPTool, *, handle_tool_errors: bool) -> BaseTool:
    """`tool` shaped as langchain-mcp-adapters' tools (see the module's docstring)."""
    mcp_tool = tool.binding.tool

    async def call(runtime: Annotated[Any, InjectedToolArg()] = None, **arguments: Any) -> tuple[Any, Any]:
        call_id = getattr(runtime, "tool_call_id", None) or _CALL_ID.get() or f"call-{uuid.uuid4().hex}"
        args = {**arguments, "runtime": runtime} if runtime is not None else arguments
        message = await tool.ainvoke({"type": "tool_call", "name": tool.name, "args": args, "id": call_id})
        return _shaped(message)

    annotations = mcp_tool.annotations.model_dump(by_alias=True) if mcp_tool.annotations is not None else {}
    meta = {"_meta": mcp_tool.meta} if mcp_tool.meta is not None else {}
    return AdaptedTool(
        name=tool.name,
        description=mcp_tool.description or "",
        args_schema=mcp_tool.input_schema,
        coroutine=call,
        response_format="content_and_artifact",
        metadata={**annotations, **meta} or None,
        handle_tool_error=_failed_content if handle_tool_errors else False,
    )


def _shaped(message: Any) -> tuple[Any, MCPToolArtifact | None]:
    """(content, artifact) from the ToolMessage mcpbridge built; what an interceptor returned
    itself (its own ToolMessage, a Command) passes as it is."""
    if not isinstance(message, ToolMessage) or not isinstance(message.artifact, list):
        return message, None
    if message.status == "error":
        raise ToolCallFailed(message.content)
    found = [entry["data"] for entry in message.artifact if entry.get("type") == STRUCTURED_CONTENT]
    return message.content, (MCPToolArtifact(structured_content=found[0]) if found else None)


async def load_mcp_tools(
    session: ClientSession | None,
    *,
    connection: Connection | None = None,
    callbacks: Callbacks | None = None,
    tool_interceptors: list[ToolCallInterceptor] | None = None,
    server_name: str | None = None,
    tool_name_prefix: bool = False,
    handle_tool_errors: bool = True,
) -> list[BaseTool]:
    """The tools of one server: of a session from `MultiServerMCPClient.session(name)`, or of
    a `connection` (a client of its own is built for it and kept open)."""
    if session is not None:
        client, name = client_of(session)
        return await client.get_tools(server_name=name)
    if connection is None:
        raise ValueError("Either a session or a connection config must be provided")
    from mcpbridge_adapters.client import MultiServerMCPClient

    name = server_name or "server"
    client = MultiServerMCPClient(
        {name: connection},
        callbacks=callbacks,
        tool_interceptors=tool_interceptors,
        tool_name_prefix=tool_name_prefix,
        handle_tool_errors=handle_tool_errors,
    )
    return await client.get_tools(server_name=name)
