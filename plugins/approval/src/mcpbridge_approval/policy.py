"""Which calls need approval: the predicate, then the rules, then what the tool declares."""

from __future__ import annotations

from mcp.types import Tool

from mcpbridge import ToolCallRequest
from mcpbridge_approval.settings import Settings


def needs_approval(settings: Settings, request: ToolCallRequest) -> bool:
    """True when a person must approve `request` before it reaches the server.

    Selection is by `(request.server_name, request.name)`, the server's own tool name, so a
    display-name prefix can never bypass a rule.
    """
    if settings.predicate is not None:
        verdict = settings.predicate(request)
        if verdict is not None:
            return bool(verdict)
    for rule in settings.rules:
        decided = rule.decide(request)
        if decided is not None:
            return decided == "require"
    return declares_destructive(request.tool, require_unannotated=settings.require_unannotated)


def declares_destructive(tool: Tool | None, *, require_unannotated: bool) -> bool:
    """`destructiveHint: true` and not `readOnlyHint: true`; a tool that says neither
    counts as destructive only with `require_unannotated`."""
    hints = tool.annotations if tool is not None else None
    read_only = hints.read_only_hint if hints is not None else None
    destructive = hints.destructive_hint if hints is not None else None
    if read_only:
        return False
    if destructive is None and read_only is None:
        return require_unannotated
    return bool(destructive)
