"""A tool's structured content checked against its output schema by the bridge, not the SDK.

The mcp SDK checks every result of a tool with an output schema using jsonschema, whose
`pattern` runs on Python's backtracking `re`: a server that declares
`{"pattern": "^(a+)+$"}` and answers `"aaaa…!"` holds the event loop, and every call on
every session with it, for as long as it likes (seconds at 28 characters, hours at 40).
The bridge takes that check over (`_compat.leave_output_checks_to_the_bridge`) and runs it
the way it checks arguments (`ToolSchema`: jsonschema-rs, patterns in linear time, nothing
fetched). Its verdicts are the SDK's (a missing or invalid structured content is a
malformed result, in the SDK's words), so nothing downstream changes but the time it takes.
"""

from __future__ import annotations

import contextlib
import time
import weakref
from typing import Any, cast

from mcp import MCPError
from mcp.client.session import ClientSession
from mcp.types import REQUEST_TIMEOUT, CallToolResult, Tool

from mcpbridge._base.config import DEFAULT_MAX_ARGUMENT_DEPTH, SchemaBounds, Settings
from mcpbridge._base.tool_errors import ToolTimeoutError
from mcpbridge._compat import leave_output_checks_to_the_bridge, own_time_limit
from mcpbridge._tools.schemas import ToolSchema, listed_schema

DEFAULT_TIMEOUT: float = Settings.model_fields["timeout"].default
"""Seconds a tool call on a session you opened may take when neither the call nor the session
sets a limit: the bridge's default (`Settings.timeout`)."""


class OutputChecks:
    """One server's output schemas, compiled once per schema a tool declares."""

    def __init__(self, server: str, bounds: SchemaBounds, max_depth: int, *, own_session: bool = False) -> None:
        self._server, self._bounds, self._max_depth = server, bounds, max_depth
        self._own_session = own_session
        self._schemas: dict[str, tuple[dict[str, Any], ToolSchema | None]] = {}

    async def __call__(self, tool: Tool, result: CallToolResult) -> str | None:
        """Why `result` (a success) breaks `tool`'s output schema, in the SDK's words; None
        when it fits or the tool declares none."""
        schema = tool.output_schema
        if schema is None:
            return None
        if result.structured_content is None and "structured_content" not in result.model_fields_set:
            return f"Tool {tool.name} has an output schema but did not return structured content"
        checks = self._check_for(tool.name, schema)
        content = cast(Any, result.structured_content)  # None too, if the server sent null: the SDK checks that
        problem = None if checks is None else checks.problems(content, self._max_depth)
        return None if problem is None else f"Invalid structured content returned by tool {tool.name}: {problem}"

    def _check_for(self, name: str, schema: dict[str, Any]) -> ToolSchema | None:
        held = self._schemas.get(name)
        if held is not None and held[0] is schema:
            return held[1]
        own = self._own_session
        checks = listed_schema(schema, self._bounds, server=self._server, tool=name, own_session=own, kind="output")
        self._schemas[name] = (schema, checks)
        return checks


_OWN_SESSIONS: weakref.WeakKeyDictionary[Any, OutputChecks] = weakref.WeakKeyDictionary()
"""The checks compiled for each session given to `call_tool_checked`, while it lives."""


async def call_tool_checked(
    session: Any, tool: Tool, arguments: dict[str, Any] | None, *, server: str | None = None, **options: Any
) -> Any:
    """`session.call_tool(tool.name, arguments, **options)` on a session you opened yourself,
    its result checked against `tool`'s output schema as the bridge checks it, not by the mcp
    SDK (a hostile server's `pattern` stalls the event loop in the SDK's check, see above). A
    result that breaks the schema raises `RuntimeError` in the SDK's words, as the SDK's own
    check would; `server` names the server in the warning about a schema over its bounds and
    in a timeout. `session` is an mcp `ClientSession`, or any object with its `call_tool`.

    On a `ClientSession` the call is bounded as the bridge's own are: by `read_timeout_seconds`
    if given, else by the session's own limit, else by the bridge's default (`Settings.timeout`,
    `DEFAULT_TIMEOUT`); running out of it raises `ToolTimeoutError` naming the tool and the limit."""
    if not isinstance(session, ClientSession):
        return await _checked(session, tool, await session.call_tool(tool.name, arguments, **options), server)
    leave_output_checks_to_the_bridge(session, (tool.name,))
    limit = options.pop("read_timeout_seconds", None) or own_time_limit(session) or DEFAULT_TIMEOUT
    started = time.monotonic()
    try:
        result = await session.call_tool(tool.name, arguments, read_timeout_seconds=limit, **options)
    except MCPError as exc:  # our own wait ran out, not a server's -32001 (which comes sooner)
        if exc.error.code == REQUEST_TIMEOUT and time.monotonic() >= started + limit:
            raise ToolTimeoutError(server or "?", tool.name, limit) from None
        raise
    return await _checked(session, tool, result, server)


async def _checked(session: Any, tool: Tool, result: Any, server: str | None) -> Any:
    if not isinstance(result, CallToolResult) or result.is_error:
        return result
    try:
        checks = _OWN_SESSIONS.get(session)
    except TypeError:  # a session-like object that cannot be weakly referenced
        checks = None
    if checks is None:
        checks = OutputChecks(server or "?", SchemaBounds(), DEFAULT_MAX_ARGUMENT_DEPTH, own_session=True)
        with contextlib.suppress(TypeError):
            _OWN_SESSIONS[session] = checks
    if (problem := await checks(tool, result)) is not None:
        raise RuntimeError(problem)
    return result
