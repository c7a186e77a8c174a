"""The one door for a tool call's arguments, and the check of its results against the tool's
output schema.

Whichever way a call comes in (an agent's `MCPTool`, `MCPBridge.call_tool`, the `mcpbridge
call` command, or a tool over a session you opened yourself, as the drop-in for
langchain-mcp-adapters builds them), its arguments pass the same checks, written here once,
before any session sees them:

- they travel as UTF-8 JSON (no lone surrogate, NaN or infinity: one breaks the transport
  for every caller sharing the session) within `max_argument_bytes`;
- they nest no deeper than `max_argument_depth` (the validator recurses per level, the
  SDK's serializer refuses ~254 levels);
- they match the tool's input schema (`ToolSchema`: jsonschema-rs, nothing fetched, patterns
  in linear time).

A call that fails is refused with `InvalidToolArguments` naming the problem (its text cut
and cleared of known secrets, as every error's); the server is not called. What an
interceptor puts in their place (an approval edit, an answer to the server's question) is
checked again just before it is sent (`sendable.check_sendable`).

A result's structured content is checked by the bridge, not the SDK (`OutputChecks`): the
SDK's jsonschema runs `pattern` on Python's backtracking `re`, so a server declaring
`{"pattern": "^(a+)+$"}` could hold the event loop for hours. The bridge takes that check
over (`_compat.leave_output_checks_to_the_bridge`) and runs it as it checks arguments; its
verdicts are the SDK's (in the SDK's words), only faster.
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Mapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Any, cast

from mcp import MCPError
from mcp.client.session import ClientSession
from mcp.types import REQUEST_TIMEOUT, CallToolResult, Tool

from mcpbridge._base.config import DEFAULT_MAX_ARGUMENT_BYTES, DEFAULT_MAX_ARGUMENT_DEPTH, SchemaBounds, Settings
from mcpbridge._base.pipeline import ToolCallRequest, checked_before_chain
from mcpbridge._base.tool_errors import ToolTimeoutError
from mcpbridge._compat import leave_output_checks_to_the_bridge, own_time_limit
from mcpbridge._session.sendable import check_sendable, refusal, wire_problems
from mcpbridge._tools.schemas import ToolSchema, listed_schema


def add_defaults(arguments: dict[str, Any], schema: ToolSchema) -> None:
    """Fill in the required properties `arguments` leave out that have a default (servers
    such as @playwright/mcp mark them required and accept calls without them)."""
    for key, default in schema.defaults:  # empty for almost every tool
        if key not in arguments:
            arguments[key] = deepcopy(default)


def argument_problem(
    arguments: Mapping[str, Any], schema: ToolSchema, max_bytes: int | None, max_depth: int
) -> str | None:
    """Why `arguments` may not be sent for a tool of input schema `schema` (they cannot travel,
    are over `max_bytes`, nest past `max_depth`, or break the schema); None when they may."""
    return wire_problems(arguments, max_bytes) or schema.problems(arguments, max_depth)


@dataclass(slots=True)
class ArgumentChecks:
    """The checks an agent's tool gives its arguments, for the calls of one MCP tool that go
    through a session you opened yourself: `await checks.check(request)` before anything
    else sees the call, `checks.sendable(request)` just before it is sent."""

    tool: Tool
    _schema: ToolSchema
    server: str
    max_argument_bytes: int | None = DEFAULT_MAX_ARGUMENT_BYTES
    max_argument_depth: int = DEFAULT_MAX_ARGUMENT_DEPTH

    @classmethod
    def of(
        cls,
        tool: Tool,
        *,
        server: str = "?",
        bounds: SchemaBounds | None = None,
        max_argument_bytes: int | None = DEFAULT_MAX_ARGUMENT_BYTES,
        max_argument_depth: int = DEFAULT_MAX_ARGUMENT_DEPTH,
    ) -> ArgumentChecks | None:
        """The checks of `tool` (a listed MCP tool of `server`), with the settings' defaults;
        None, with one warning, when its input schema costs more than `bounds`: leave the
        tool out, as the bridge leaves out its own."""
        schema = listed_schema(
            tool.input_schema, bounds or SchemaBounds(), server=server, tool=tool.name, own_session=True
        )
        return None if schema is None else cls(tool, schema, server, max_argument_bytes, max_argument_depth)

    @property
    def for_model(self) -> dict[str, Any]:
        """The input schema to give a model (`model_schema`)."""
        return self._schema.for_model

    async def check(self, request: ToolCallRequest) -> ToolCallRequest:
        """`request` with its arguments checked (and required defaults filled in), marked so
        that `sendable` checks them again only if an interceptor replaces them; raises
        `InvalidToolArguments` naming the problem."""
        arguments = dict(request.args)
        add_defaults(arguments, self._schema)
        problem = argument_problem(arguments, self._schema, self.max_argument_bytes, self.max_argument_depth)
        if problem is not None:
            raise refusal(request, "arguments", problem)
        return checked_before_chain(request.override(args=arguments))

    def sendable(self, request: ToolCallRequest) -> None:
        """Raise `InvalidToolArguments` when what `request` sends cannot travel (arguments an
        interceptor replaced, answers, `_meta`), before the session sees it."""
        check_sendable(request, self.max_argument_bytes)


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
