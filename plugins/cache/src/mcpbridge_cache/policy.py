"""Which calls may be cached, and for how long.

Selected by (server, MCP tool name), never by the display name. A tool the server marks
destructive is never cached, even when listed: serving a stale answer to a call that was
meant to change something would silently skip the change.
"""

from __future__ import annotations

import logging

from mcpbridge import ToolCallRequest
from mcpbridge_cache.settings import CacheSettings, ToolRule

logger = logging.getLogger("mcpbridge_cache")


class Policy:
    def __init__(self, settings: CacheSettings) -> None:
        self._default_ttl = settings.ttl
        self._read_only = settings.read_only
        self._rules: dict[tuple[str, str], ToolRule] = {(rule.server, rule.tool): rule for rule in settings.tools}
        self._warned: set[tuple[str, str]] = set()

    def ttl(self, request: ToolCallRequest) -> float | None:
        """Seconds to keep this call's result, or None when it must not be cached."""
        if request.input_responses is not None or request.request_state is not None:
            return None  # the second leg of an elicitation round: answers belong to this call only
        rule = self._rules.get((request.server_name, request.name)) or self._rules.get((request.server_name, "*"))
        annotations = request.tool.annotations if request.tool is not None else None
        if annotations is not None and annotations.destructive_hint is True:
            if rule is not None and rule.cache:
                self._warn_destructive(request)
            return None
        if rule is not None:
            return (rule.ttl or self._default_ttl) if rule.cache else None
        if self._read_only and annotations is not None and annotations.read_only_hint is True:
            return self._default_ttl
        return None

    def _warn_destructive(self, request: ToolCallRequest) -> None:
        where = (request.server_name, request.name)
        if where not in self._warned:
            self._warned.add(where)
            logger.warning(
                "mcpbridge-cache: tool %r of server %r is listed in [plugins.cache] tools but its server marks "
                "it destructive (destructiveHint), so it is never cached; remove it from the list",
                request.name,
                request.server_name,
            )
