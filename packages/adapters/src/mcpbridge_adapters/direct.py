"""Tools over a session you opened yourself (an mcp `ClientSession`, or any object with its
methods), or over a `connection` with a new session per call: as langchain-mcp-adapters
builds them, the calls going straight to that session through your `tool_interceptors`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool
from mcp.types import Tool

from mcpbridge import (
    ArgumentChecks,
    InvalidToolArguments,
    ToolCallRequest,
    ToolTimeoutError,
    call_tool_checked,
    compose,
)
from mcpbridge_adapters.callbacks import CallbackContext, Callbacks, _MCPCallbacks
from mcpbridge_adapters.convert import (
    _convert_call_tool_result,
    _handle_mcp_tool_error,
    metadata_of,
    refused_call,
)
from mcpbridge_adapters.interceptors import legacy
from mcpbridge_adapters.sessions import Connection, create_session, in_new_session

_HTTP = ("sse", "http", "streamable_http", "streamable-http")


def direct_tool(
    session: Any,
    tool: Tool,
    *,
    connection: Connection | None,
    callbacks: Callbacks | None,
    tool_interceptors: Sequence[Any] | None,
    server_name: str | None,
    tool_name_prefix: bool,
    handle_tool_errors: bool,
) -> BaseTool | None:
    """`tool` called through `session` (or a new session of `connection` per call); None,
    with one warning, when its input schema costs more than mcpbridge gives a model.

    Its calls pass the checks an mcpbridge tool's pass (`ArgumentChecks`): arguments that
    cannot travel, nest too deep or break the input schema never reach the session (one lone
    surrogate would end it), and are refused as the shared sessions' tools refuse them. They
    are bounded in time as those are (`call_tool_checked`): an interceptor's `request.timeout`,
    else the session's own limit, else mcpbridge's default; a call that runs out of it fails
    as there, naming the tool and the limit."""
    checks = ArgumentChecks.of(tool, server=server_name or "?")
    if checks is None:
        return None
    name = f"{server_name}_{tool.name}" if tool_name_prefix and server_name else tool.name

    async def call_tool(runtime: Annotated[Any, InjectedToolArg()] = None, **arguments: Any) -> tuple[Any, Any]:
        context = CallbackContext(server_name=server_name or "unknown", tool_name=tool.name)
        mcp_callbacks = callbacks.to_mcp_format(context=context) if callbacks is not None else _MCPCallbacks()

        async def execute(request: ToolCallRequest) -> Any:
            checks.sendable(request)  # what an interceptor changed, before the session sees it
            if session is not None:
                result = await _checked(session, tool, request, mcp_callbacks)
            else:
                assert connection is not None
                result = await _call_once(_with_headers(connection, request.headers), tool, request, mcp_callbacks)
            return legacy(result)

        handler = compose(list(tool_interceptors or []), execute)
        request = ToolCallRequest(
            name=tool.name, args=arguments, server_name=server_name or "unknown", runtime=runtime, display_name=name
        )
        try:
            return _convert_call_tool_result(await handler(await checks.check(request)))
        except (InvalidToolArguments, ToolTimeoutError) as refused:
            raise refused_call(refused) from refused

    return StructuredTool(
        name=name,
        description=tool.description or "",
        args_schema=checks.for_model,
        coroutine=call_tool,
        response_format="content_and_artifact",
        metadata=metadata_of(tool),
        handle_tool_error=_handle_mcp_tool_error if handle_tool_errors else False,  # type: ignore[arg-type]
    )


def _with_headers(connection: Connection, headers: Mapping[str, str] | None) -> Connection:
    """`connection` with an interceptor's `request.headers` added, for HTTP servers."""
    if headers is None or connection.get("transport") not in _HTTP:
        return connection
    given: dict[str, Any] = dict(connection)
    return {**given, "headers": {**(given.get("headers") or {}), **headers}}  # type: ignore[return-value]


def _checked(session: Any, tool: Tool, request: ToolCallRequest, mcp_callbacks: _MCPCallbacks) -> Any:
    """The call of `request` on `session`, its result checked against `tool`'s output schema
    by mcpbridge (RE2 patterns), not by the mcp SDK (whose check a server's pattern can
    stall the event loop with); a mismatch raises the SDK's `RuntimeError`, as before."""
    options: dict[str, Any] = {"progress_callback": mcp_callbacks.progress_callback}
    if request.timeout is not None:  # an interceptor's time limit, as on a shared session
        options["read_timeout_seconds"] = request.timeout
    if request.name != tool.name:  # an interceptor sent another tool's call: the SDK checks that one
        return session.call_tool(request.name, request.args, **options)
    return call_tool_checked(session, tool, request.args, server=request.server_name, **options)


async def _call_once(connection: Connection, tool: Tool, request: ToolCallRequest, mcp_callbacks: _MCPCallbacks) -> Any:
    """One call on a new session."""

    async def call(session: Any) -> Any:
        await session.initialize()
        return await _checked(session, tool, request, mcp_callbacks)

    return await in_new_session(create_session(connection, mcp_callbacks=mcp_callbacks), call)
