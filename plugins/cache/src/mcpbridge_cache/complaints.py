"""Warn once per thing that is wrong in the store. A bad entry nobody replaces (the calls
that miss it end in errors, which are never stored) would otherwise log on every call."""

from __future__ import annotations

import logging
from collections.abc import Hashable

from mcpbridge_cache.keys import CacheKey

logger = logging.getLogger("mcpbridge_cache")

LIMIT = 1024
"""Subjects remembered; past that all are forgotten (so each may warn once more)."""


class Complaints:
    def __init__(self) -> None:
        self._told: set[Hashable] = set()

    def warn(self, subject: Hashable, message: str, *args: object) -> None:
        """Log `message` at WARNING the first time for `subject`, at DEBUG after that."""
        if subject in self._told:
            logger.debug(message, *args)
            return
        if len(self._told) >= LIMIT:
            self._told.clear()
        self._told.add(subject)
        logger.warning(message, *args)

    def bad_entry(self, key: CacheKey, problem: str) -> None:
        """An entry that is no entry the cache could have written: the call it answers misses."""
        self.warn(
            key,
            "mcpbridge-cache: a cache entry of tool %r on server %r %s: it is a miss (a result stored for the "
            "call replaces it)",
            key.tool,
            key.server,
            problem,
        )
