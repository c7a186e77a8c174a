"""Tools over a client's shared sessions: the bridge's own tools (its plugins, persistent
sessions and checks), shaped as langchain-mcp-adapters shapes its tools.

A drop-in tool is an `MCPTool` of the client's bridge around a handler of its own: one
LangChain run per call, as for any tool of the bridge. Each call carries the tool's
`tool_interceptors` and `callbacks` in its request, as an observer (`DropInCall`), to the
client's layer (`drop_in_layer`), which runs them where the bridge runs
`MCPBridge(interceptors=...)`: inside the plugins. The handler converts what comes back as
the adapters convert a result.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.types import Command
from mcp.types import CallToolResult

from mcpbridge import MCPTool, ServerConnectionError, ToolCallError, ToolCallHandler, ToolCallRequest, compose
from mcpbridge_adapters.callbacks import CallbackContext, Callbacks
from mcpbridge_adapters.convert import (
    _convert_call_tool_result,
    _handle_mcp_tool_error,
    _MCPToolExecutionError,
    metadata_of,
    refused_call,
    with_lc_ids,
)
from mcpbridge_adapters.interceptors import legacy, speaking_legacy


class DropInCall:
    """What one call of a drop-in tool carries to the client's layer among its request's
    observers: the tool's interceptors, and its callbacks, which hear through it the
    progress and log messages that come with the call."""

    def __init__(self, layers: Sequence[Any], callbacks: Callbacks | None, context: CallbackContext) -> None:
        self.layers, self.callbacks, self.context = layers, callbacks, context
        self.pending: list[asyncio.Future[Any]] = []

    def __call__(self, event: str, data: Mapping[str, Any]) -> None:
        if self.callbacks is not None and (work := self.callbacks.hear(event, data, self.context)) is not None:
            self.pending.append(asyncio.ensure_future(work))


async def drop_in_layer(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """The client's layer: a drop-in tool's call runs its interceptors here, their results
    with the mcp 1.x names; the callbacks it started finish before it returns."""
    carried = next((seen for seen in request.observers if isinstance(seen, DropInCall)), None)
    if carried is None:
        return await handler(request)
    if carried.callbacks is None:  # nobody listens: the call goes on unobserved
        request = request.override(observers=tuple(seen for seen in request.observers if seen is not carried))
    try:
        return legacy(await compose(carried.layers, handler)(request))
    finally:
        if carried.pending:
            await asyncio.gather(*carried.pending)


def bridged_tool(
    tool: MCPTool, *, name: str, interceptors: Sequence[Any], callbacks: Callbacks | None, handle_tool_errors: bool
) -> MCPTool:
    """`tool` as the adapters' tool named `name`: their description and metadata
    (annotations and `_meta` flat), `{"structured_content": ...}` as the artifact, an
    `isError` result (or a call mcpbridge refused) failed as a ToolException that
    `handle_tool_errors` turns into an error ToolMessage. The model gets mcpbridge's schema
    (bounded, `$ref`s LangChain cannot inline left out)."""
    binding = tool.binding
    layers = tuple(map(speaking_legacy, interceptors))
    listening = callbacks if callbacks is not None and callbacks.listening else None
    chain, transport_errors = binding.handler, binding.handle_transport_errors

    async def call(request: ToolCallRequest) -> Any:
        if layers or listening is not None:
            carried = DropInCall(layers, listening, CallbackContext(request.server_name, request.name))
            request = request.override(observers=(*request.observers, carried))
        try:
            try:
                result = await chain(request)
            except ToolCallError as error:
                if isinstance(error, ServerConnectionError) and not transport_errors:
                    raise
                raise refused_call(error) from error
            if isinstance(result, ToolMessage) and isinstance(result.artifact, list):
                content, artifact = _from_plugin(result)
            elif isinstance(result, CallToolResult | ToolMessage | Command):
                content, artifact = _convert_call_tool_result(result)
            else:
                return result  # a round nobody answered: the bridge says what to install
        except _MCPToolExecutionError as failure:
            if not handle_tool_errors:
                raise
            return _output(_handle_mcp_tool_error(failure), None, request, "error")
        return _output(content, artifact, request, "success")

    adapted = MCPTool.create(
        dataclasses.replace(binding, handler=call), name=name, handle_tool_error=handle_tool_errors
    )
    adapted.description = binding.tool.description or ""
    adapted.metadata = metadata_of(binding.tool)
    return adapted


def _from_plugin(message: ToolMessage) -> tuple[Any, None]:
    """(content, artifact) of a ToolMessage a plugin built (its artifact a list of entries)
    in the adapters' shape: blocks with `lc_...` ids; an error one raised as their errors."""
    if message.status == "error":
        raise _MCPToolExecutionError(with_lc_ids(message.content))
    return with_lc_ids(message.content), None


def _output(content: Any, artifact: Any, request: ToolCallRequest, status: str) -> Any:
    """What LangChain makes of a tool's `(content, artifact)`: a ToolMessage for a call with a
    tool call id, else the content; an interceptor's ToolMessage or Command as it is."""
    if isinstance(content, ToolMessage | Command) or request.tool_call_id is None:
        return content
    return ToolMessage(
        content, artifact=artifact, tool_call_id=request.tool_call_id, name=request.display_name, status=status
    )
