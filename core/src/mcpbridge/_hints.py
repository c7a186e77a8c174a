"""One reading of a tool's MCP annotations, with the protocol's defaults for a missing hint.

The MCP spec: `readOnlyHint` defaults to false, `destructiveHint` to true (it only means
something when the tool is not read-only), `idempotentHint` to false, `openWorldHint` to
true. Annotations are the server's claims, not guarantees: use them for defaults that a
person can override in the config, never as a security boundary on their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.types import Tool


@dataclass(frozen=True, slots=True)
class ToolHints:
    """What a tool says about itself; missing hints take the MCP spec's defaults."""

    read_only: bool = False
    destructive: bool = True
    """Never true for a read-only tool."""
    idempotent: bool = False
    """True for a read-only tool too: repeating a call without side effects is safe."""
    open_world: bool = True
    annotated: bool = False
    """Whether the tool declares `readOnlyHint` or `destructiveHint` at all (policies may
    treat a tool that says nothing differently from one that says "destructive")."""


def tool_hints(tool: Tool | None) -> ToolHints:
    """The hints of `tool` (all defaults for None or a tool without annotations)."""
    given = tool.annotations if tool is not None else None
    if given is None:
        return ToolHints()
    read_only = bool(given.read_only_hint)
    return ToolHints(
        read_only=read_only,
        destructive=not read_only and given.destructive_hint is not False,
        idempotent=read_only or bool(given.idempotent_hint),
        open_world=given.open_world_hint is not False,
        annotated=given.read_only_hint is not None or given.destructive_hint is not None,
    )
