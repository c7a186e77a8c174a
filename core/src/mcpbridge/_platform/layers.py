"""The layers of one tool: the plugins' interceptors that have work for it, in chain order.

An interceptor with `applies_to(server_name, tool)` is asked once per tool definition; one
that answers False is left out of that tool's chain, so its calls never pass through it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from mcp.types import Tool

from mcpbridge._base.pipeline import ToolCallInterceptor

logger = logging.getLogger(__name__)


def tool_layers(
    contributed: Mapping[str, Sequence[ToolCallInterceptor]], order: Sequence[str], server_name: str, tool: Tool
) -> list[tuple[str, ToolCallInterceptor]]:
    """(plugin, interceptor) for each interceptor on the chain of `tool` of `server_name`."""
    return [
        (plugin, interceptor)
        for plugin in order
        for interceptor in contributed.get(plugin, ())
        if _applies(plugin, interceptor, server_name, tool)
    ]


def _applies(plugin: str, interceptor: ToolCallInterceptor, server_name: str, tool: Tool) -> bool:
    """Whether `interceptor` has work for the tool. One whose `applies_to` fails stays on the
    chain (a gate must not open because its plugin is broken), with a warning."""
    applies_to = getattr(interceptor, "applies_to", None)
    if applies_to is None:
        return True
    try:
        return bool(applies_to(server_name, tool))
    except Exception as exc:
        logger.warning(
            "mcpbridge: plugin %r failed in applies_to for tool %r of server %r (%s: %s); "
            "its interceptor stays on that tool's chain",
            plugin,
            tool.name[:80],
            server_name,
            type(exc).__name__,
            exc,
        )
        return True
