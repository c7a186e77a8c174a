"""Tools over a client's shared sessions: mcpbridge tools (plugins, persistent sessions)
shaped as langchain-mcp-adapters shapes them.

The bridge of a `MultiServerMCPClient` has one interceptor of its own, `DropInLayer`. Each
call of a drop-in tool tells it (through a context variable) the `tool_interceptors` and
`callbacks` that `load_mcp_tools` was given, so those run per tool as in the adapters; the
layer keeps the result they return, which the tool then converts as the adapters do. A call
that never reached the layer (refused before it, answered by a plugin outside it) is shaped
from the ToolMessage mcpbridge built.
"""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool
from langgraph.types import Command

from mcpbridge import STRUCTURED_CONTENT, MCPTool, ToolCallHandler, ToolCallRequest, compose
from mcpbridge_adapters.callbacks import Callbacks
from mcpbridge_adapters.convert import (
    MCPToolArtifact,
    _convert_call_tool_result,
    _MCPToolExecutionError,
    with_lc_ids,
)
from mcpbridge_adapters.direct import adapted_tool
from mcpbridge_adapters.interceptors import legacy, speaking_legacy


@dataclass
class _Call:
    """One call of a drop-in tool: what runs around it, and what came back."""

    interceptors: Sequence[Any]
    callbacks: Callbacks | None
    reached: bool = False
    result: Any = field(default=None)


_CALL: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("mcpbridge_adapters_call", default=None)
_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("mcpbridge_adapters_call_id", default=None)


class DropInLayer:
    """The bridge's interceptor: runs the calling tool's interceptors and callbacks, and
    keeps the result they return for the tool to convert."""

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        call = _CALL.get()
        if call is None:
            return await handler(request)
        listening = call.callbacks.interceptor() if call.callbacks is not None else None
        layers = [*([listening] if listening is not None else []), *map(speaking_legacy, call.interceptors)]
        call.result = legacy(await compose(layers, handler)(request))
        call.reached = True
        return call.result


def _unreached(message: Any) -> tuple[Any, MCPToolArtifact | None]:
    """(content, artifact) of what mcpbridge returned: an interceptor's own ToolMessage or
    Command as it is, a ToolMessage mcpbridge built in the adapters' shape."""
    if not isinstance(message, ToolMessage) or not isinstance(message.artifact, list):
        return message, None
    if message.status == "error":
        raise _MCPToolExecutionError(with_lc_ids(message.content))
    found = [entry["data"] for entry in message.artifact if entry.get("type") == STRUCTURED_CONTENT]
    return with_lc_ids(message.content), (MCPToolArtifact(structured_content=found[0]) if found else None)


class AdaptedTool(StructuredTool):
    """A StructuredTool over one mcpbridge tool; knows the id of the ToolCall it answers."""

    async def arun(self, *args: Any, tool_call_id: str | None = None, **kwargs: Any) -> Any:
        token = _CALL_ID.set(tool_call_id)
        try:
            return await super().arun(*args, tool_call_id=tool_call_id, **kwargs)
        finally:
            _CALL_ID.reset(token)


def bridged_tool(
    tool: MCPTool,
    *,
    name: str,
    interceptors: Sequence[Any],
    callbacks: Callbacks | None,
    handle_tool_errors: bool,
) -> BaseTool:
    """`tool` shaped as the adapters' tools: annotations (and `_meta`) flat in `metadata`,
    `{"structured_content": ...}` as the artifact, `isError` raised as a ToolException
    that `handle_tool_errors` turns into an error ToolMessage."""
    mcp_tool = tool.binding.tool

    async def call(runtime: Annotated[Any, InjectedToolArg()] = None, **arguments: Any) -> tuple[Any, Any]:
        call_id = getattr(runtime, "tool_call_id", None) or _CALL_ID.get() or f"call-{uuid.uuid4().hex}"
        args = {**arguments, "runtime": runtime} if runtime is not None else arguments
        state = _Call(interceptors, callbacks)
        token = _CALL.set(state)
        try:
            message = await tool.ainvoke({"type": "tool_call", "name": tool.name, "args": args, "id": call_id})
        finally:
            _CALL.reset(token)
        if state.reached and not isinstance(state.result, ToolMessage | Command):
            return _convert_call_tool_result(state.result)
        return _unreached(message)

    # The model gets mcpbridge's schema (bounded, `$ref`s LangChain cannot inline left out):
    # with the server's own, one tool's `"$ref": "#/nowhere"` made every `bind_tools` raise.
    return adapted_tool(
        AdaptedTool, name, mcp_tool, call, handle_tool_errors=handle_tool_errors, args_schema=tool.args_schema
    )
