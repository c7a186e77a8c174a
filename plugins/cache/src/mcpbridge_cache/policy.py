"""Which calls may be cached, for how long, and which calls are writes that invalidate.

Nothing is cached unless a rule says so. A rule caches the read-only tools it selects
(`readOnlyHint: true`: no side effects, though not necessarily the same answer twice, which
is why reading is opt-in); a rule naming one tool exactly also caches that tool when it
says nothing about itself. A tool its server says writes (annotated and not read-only) is
never cached, whatever the rules. Selected by (server, MCP tool name), never by the display
name.
"""

from __future__ import annotations

import fnmatch
import logging
from dataclasses import dataclass

from mcp.types import Tool

from mcpbridge import ToolCallRequest, selected, tool_hints
from mcpbridge_cache.settings import CacheSettings

logger = logging.getLogger("mcpbridge_cache")


@dataclass(frozen=True, slots=True)
class Decision:
    ttl: float | None
    """Seconds to keep a result, or None: not cached."""
    write: bool
    """A call of this tool invalidates entries of its server before and after it runs."""


class Policy:
    def __init__(self, settings: CacheSettings) -> None:
        self._settings = settings
        self._decided: dict[tuple[str, str], tuple[Tool | None, Decision]] = {}
        """The decision for each (server, tool), with the listed tool it was decided for."""

    def decide(self, request: ToolCallRequest) -> Decision:
        return self.decide_for(request.server_name, request.name, request.tool)

    def decide_for(self, server_name: str, name: str, tool: Tool | None) -> Decision:
        """The decision for the MCP tool `name` of `server_name`, as listed (`tool`)."""
        where = (server_name, name)
        decided = self._decided.get(where)
        if decided is None or decided[0] is not tool:  # first call, or the tools were listed again
            decided = self._decided[where] = (tool, self._decide(server_name, name, tool))
        return decided[1]

    def _decide(self, server_name: str, name: str, tool: Tool | None) -> Decision:
        settings = self._settings
        rule = next(selected(settings.rules, server_name, name), None)
        hints = tool_hints(tool)
        ttl = None
        if rule is not None and rule.cache:
            if hints.read_only or (rule.exact and not hints.annotated):
                ttl = rule.ttl or settings.ttl
            elif rule.exact:
                logger.warning(
                    "mcpbridge-cache: tool %r of server %r is named by a rule in [plugins.cache] rules but its "
                    "server says it is not read-only, so it is never cached (and its calls invalidate); "
                    "remove the rule",
                    name,
                    server_name,
                )
        write = (
            ttl is None
            and not hints.read_only
            and settings.invalidate != "off"
            and any(rule.cache and fnmatch.fnmatchcase(server_name, rule.server) for rule in settings.rules)
        )
        return Decision(ttl, write)
