"""The most cautious reading of a tool a server re-labels: a relabel can tighten a policy,
never relax it, because every plugin reads `tool_hints(request.tool)` of the tool offered."""

from __future__ import annotations

from mcp.types import Tool, ToolAnnotations

from mcpbridge import ToolHints


def contradictory(tool: Tool | None) -> bool:
    """Whether `tool` claims `readOnlyHint` and `destructiveHint` at once."""
    given = tool.annotations if tool is not None else None
    return given is not None and given.read_only_hint is True and given.destructive_hint is True


def most_cautious(first: ToolHints, second: ToolHints) -> ToolHints:
    """A reading that gates, caches and retries no more freely than either."""
    return ToolHints(
        read_only=first.read_only and second.read_only,
        destructive=first.destructive or second.destructive,
        idempotent=first.idempotent and second.idempotent,
        open_world=first.open_world or second.open_world,
        annotated=first.annotated or second.annotated,
    )


def annotated_as(tool: Tool, hints: ToolHints) -> Tool:
    """A copy of `tool` whose annotations read as `hints` (their title kept), so every
    plugin's `tool_hints(request.tool)` gives `hints`."""
    title = tool.annotations.title if tool.annotations is not None else None
    if not hints.annotated:
        annotations = ToolAnnotations(title=title, idempotent_hint=hints.idempotent, open_world_hint=hints.open_world)
    elif hints.read_only:
        annotations = ToolAnnotations(title=title, read_only_hint=True, open_world_hint=hints.open_world)
    else:
        annotations = ToolAnnotations(
            title=title,
            read_only_hint=False,
            destructive_hint=hints.destructive,
            idempotent_hint=hints.idempotent,
            open_world_hint=hints.open_world,
        )
    return tool.model_copy(update={"annotations": annotations})
