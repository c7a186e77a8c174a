"""The Redis store: entries shared by every process and worker that points at one Redis.

A cache must never turn an outage into errors: when Redis cannot be reached, every
operation raises `StoreUnavailable` (the call then goes to the server uncached), one
warning is logged per outage, and Redis is left alone for `retry` seconds so calls do not
each pay a connect timeout.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from mcpbridge import redact_url
from mcpbridge_cache.keys import CacheKey, pattern
from mcpbridge_cache.stores import StoreUnavailable

logger = logging.getLogger("mcpbridge_cache")
_FAILURES = (RedisError, OSError, TimeoutError)
_BATCH = 500


class RedisStore:
    """Entries as plain strings with a TTL (`SET key entry PX ttl`)."""

    def __init__(self, url: str, *, namespace: str, timeout: float, retry: float) -> None:
        self.url = url
        self.namespace = namespace
        self._shown_url = redact_url(url)  # never a password in logs or errors
        self._timeout = timeout
        self._retry = retry
        self._down_until = 0.0
        self._warned = False
        # A redis.asyncio client belongs to the loop it first ran on; a bridge used from
        # sync code runs on its own loop thread, tests on a loop each.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Redis] = weakref.WeakKeyDictionary()

    async def get(self, key: CacheKey) -> str | bytes | None:
        client = self._client()
        try:
            found: str | bytes | None = await client.get(key.text(self.namespace))
        except _FAILURES as exc:
            raise self._failed(exc) from exc
        self._recovered()
        return found

    async def set(self, key: CacheKey, entry: str, ttl: float) -> None:
        client = self._client()
        try:
            await client.set(key.text(self.namespace), entry, px=max(1, round(ttl * 1000)))
        except _FAILURES as exc:
            raise self._failed(exc) from exc
        self._recovered()

    async def clear(self, server: str | None = None, tool: str | None = None) -> int:
        """SCAN + UNLINK in batches: never blocks Redis the way KEYS would. Unlike get/set it
        raises the outage as an error: whoever asked to clear must know it did not happen."""
        client = self._client(probe=True)
        removed = 0
        batch: list[bytes] = []
        try:
            async for name in client.scan_iter(match=pattern(self.namespace, server, tool), count=_BATCH):
                batch.append(name)
                if len(batch) >= _BATCH:
                    removed += await client.unlink(*batch)
                    batch.clear()
            if batch:
                removed += await client.unlink(*batch)
        except _FAILURES as exc:
            raise StoreUnavailable(f"could not clear the cache in Redis at {self._shown_url}: {exc}") from exc
        return removed

    async def aclose(self) -> None:
        """Close the client of the running loop (others close with their loops)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def _client(self, *, probe: bool = False) -> Redis:
        if not probe and time.monotonic() < self._down_until:
            raise StoreUnavailable(f"Redis at {self._shown_url} is unreachable")
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = Redis.from_url(
                self.url,
                socket_timeout=self._timeout,
                socket_connect_timeout=self._timeout,
                retry=Retry(NoBackoff(), 0),
            )
            self._clients[loop] = client
        return client

    def _failed(self, exc: BaseException) -> StoreUnavailable:
        self._down_until = time.monotonic() + self._retry
        if not self._warned:
            self._warned = True
            logger.warning(
                "mcpbridge-cache: Redis at %s is unreachable (%s: %s); tool calls go to their servers "
                "uncached until it answers again (next try in %g s)",
                self._shown_url,
                type(exc).__name__,
                exc,
                self._retry,
            )
        return StoreUnavailable(str(exc))

    def _recovered(self) -> None:
        if self._warned:
            self._warned = False
            logger.info("mcpbridge-cache: Redis at %s answers again; caching resumed", self._shown_url)
