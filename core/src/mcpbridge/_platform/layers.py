"""The layers of one tool: the plugins' interceptors that have work for it, in chain order.

An interceptor with `applies_to(server_name, tool)` is asked once per tool definition; one
that answers False is left out of that tool's chain, so its calls never pass through it.
Tools whose interceptors answer alike share one `Layering` (a listing of thousands of tools
holds a handful of them), so what is composed from it is composed once.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mcp.types import Tool

from mcpbridge._base.pipeline import ToolCallInterceptor

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True, eq=False)
class Layering:
    """The interceptors on one tool's chain, outermost first, and the layers it passes."""

    interceptors: tuple[ToolCallInterceptor, ...]
    chain: tuple[str, ...]
    """Each plugin once, in chain order (`MCPTool.chain`)."""


class ToolLayers:
    """Which of the plugins' interceptors each tool's chain holds."""

    def __init__(self, contributed: Mapping[str, Sequence[ToolCallInterceptor]], order: Sequence[str]) -> None:
        self._candidates = [(plugin, interceptor) for plugin in order for interceptor in contributed.get(plugin, ())]
        self._shared: dict[tuple[bool, ...], Layering] = {}

    def of(self, server_name: str, tool: Tool) -> Layering:
        """The layering of `tool` of `server_name` (the same object for every tool it fits)."""
        picked = tuple(_applies(plugin, interceptor, server_name, tool) for plugin, interceptor in self._candidates)
        if (layering := self._shared.get(picked)) is None:
            chosen = [candidate for candidate, keep in zip(self._candidates, picked, strict=True) if keep]
            chain = tuple(dict.fromkeys(plugin for plugin, _ in chosen))
            layering = self._shared[picked] = Layering(tuple(interceptor for _, interceptor in chosen), chain)
        return layering


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
            f"mcpbridge: plugin {plugin!r} failed in applies_to for tool {tool.name[:80]!r} of server "
            f"{server_name!r} ({type(exc).__name__}: {exc}); its interceptor stays on that tool's chain"
        )
        return True
