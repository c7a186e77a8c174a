"""Which calls may be cached, and for how long.

Selected by (server, MCP tool name), never by the display name. A tool its server marks
destructive is never cached, even when a rule selects it: serving a stale answer to a call
that was meant to change something would silently skip the change.
"""

from __future__ import annotations

import logging

from mcp.types import Tool

from mcpbridge import ToolCallRequest, selected, tool_hints
from mcpbridge_cache.settings import CacheSettings

logger = logging.getLogger("mcpbridge_cache")


class Policy:
    def __init__(self, settings: CacheSettings) -> None:
        self._settings = settings
        self._decided: dict[tuple[str, str], tuple[Tool | None, float | None]] = {}
        """The TTL of each (server, tool), with the listed tool it was decided for."""

    def ttl(self, request: ToolCallRequest) -> float | None:
        """Seconds to keep this call's result, or None when it must not be cached."""
        if request.input_responses is not None or request.request_state is not None:
            return None  # the second leg of an elicitation round: answers belong to this call only
        where = (request.server_name, request.name)
        decided = self._decided.get(where)
        if decided is None or decided[0] is not request.tool:  # first call, or the tools were listed again
            decided = self._decided[where] = (request.tool, self._decide(request))
        return decided[1]

    def _decide(self, request: ToolCallRequest) -> float | None:
        settings = self._settings
        rule = next(selected(settings.rules, request.server_name, request.name), None)
        hints = tool_hints(request.tool)
        if hints.destructive and hints.annotated:
            if rule is not None and rule.cache:
                logger.warning(
                    "mcpbridge-cache: tool %r of server %r is selected by a rule in [plugins.cache] rules but its "
                    "server marks it destructive, so it is never cached; narrow the rule",
                    request.name,
                    request.server_name,
                )
            return None
        if rule is not None:
            return (rule.ttl or settings.ttl) if rule.cache else None
        return settings.ttl if settings.read_only and hints.read_only else None
