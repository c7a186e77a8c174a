"""The one door for a tool call's arguments: whichever way a call comes in (an agent's
`MCPTool`, `MCPBridge.call_tool`, the `mcpbridge call` command, which uses it, or a tool over
a session you opened yourself, as the drop-in for langchain-mcp-adapters builds them), its
arguments pass the same checks, written here once, before any session sees them:

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
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from mcp.types import Tool

from mcpbridge._base.config import DEFAULT_MAX_ARGUMENT_BYTES, DEFAULT_MAX_ARGUMENT_DEPTH, SchemaBounds
from mcpbridge._base.pipeline import ToolCallRequest, checked_before_chain
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
