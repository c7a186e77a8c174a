"""One reading of a tool's MCP annotations, with the protocol's defaults for a missing hint.

The MCP spec: `readOnlyHint` defaults to false, `destructiveHint` to true (it only means
something when the tool is not read-only), `idempotentHint` to false, `openWorldHint` to
true. Annotations are the server's claims, not guarantees: use them for defaults that a
person can override in the config, never as a security boundary on their own. Where they
contradict themselves (`readOnlyHint` and `destructiveHint` both true), the unsafe claim
wins, for every policy alike.
"""

from __future__ import annotations

import functools
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
    """The hints of `tool` (all defaults for None or a tool without annotations); a tool that
    claims to be both read-only and destructive is read as destructive, not read-only and
    idempotent only if it says so."""
    if tool is None or (given := tool.annotations) is None:
        return _UNANNOTATED
    return _reading(given.read_only_hint, given.destructive_hint, given.idempotent_hint, given.open_world_hint)


@functools.cache
def _reading(
    read_only_hint: bool | None, destructive_hint: bool | None, idempotent_hint: bool | None, open_world: bool | None
) -> ToolHints:
    """One shared reading per combination of hints (policies ask on every call)."""
    read_only = read_only_hint is True and destructive_hint is not True
    return ToolHints(
        read_only=read_only,
        destructive=not read_only and destructive_hint is not False,
        idempotent=read_only or idempotent_hint is True,
        open_world=open_world is not False,
        annotated=read_only_hint is not None or destructive_hint is not None,
    )


_UNANNOTATED = ToolHints()
