"""The Redis store: entries shared by every process and worker that points at one Redis.

An entry is `<generations>|<encoded result>` under its key with a TTL; a get is one MGET
of the server's and the scope's generation counters and the entry. A cache must never
turn an outage into errors: when Redis cannot be reached, every operation raises
`StoreUnavailable` (the call then goes to the server uncached), one warning is logged per
outage, and Redis is left alone for `retry` seconds so calls do not each pay a connect
timeout.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from typing import Any
from urllib.parse import quote

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from mcpbridge import redact_url
from mcpbridge_cache.flights import RedisFlights
from mcpbridge_cache.keys import VERSION, CacheKey, is_entry, pattern
from mcpbridge_cache.stores import Lease, Seen, StoreUnavailable

logger = logging.getLogger("mcpbridge_cache")
_FAILURES = (RedisError, OSError, TimeoutError)
_BATCH = 500
_GENERATION_LIFETIME_MS = 86_400_000
"""A generation counter lives a day after its last bump (a read in flight for longer than
that could store an entry that looks fresh; a tagged entry outliving it is a miss)."""
_SET_IF_CURRENT = """
local now = redis.call('mget', KEYS[1], KEYS[2])
if (tonumber(now[1]) or 0) ~= tonumber(ARGV[1]) or (tonumber(now[2]) or 0) ~= tonumber(ARGV[2]) then return 0 end
redis.call('set', KEYS[3], ARGV[3], 'PX', ARGV[4])
return 1
"""


class RedisStore:
    def __init__(
        self, url: str, *, namespace: str, timeout: float, retry: float, flight_wait: float, flight_lease: float
    ) -> None:
        self.url = url
        self.namespace = namespace
        self._shown_url = redact_url(url)  # never a password in logs or errors
        self._timeout = timeout
        self._retry = retry
        self._flights = RedisFlights(namespace=namespace, lease=flight_lease, wait=flight_wait)
        self._down_until = 0.0
        self._warned = False
        # A redis.asyncio client belongs to the loop it first ran on; a bridge used from
        # sync code runs on its own loop thread, tests on a loop each.
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Redis] = weakref.WeakKeyDictionary()

    def _generations(self, server: str, scope: str | None = None) -> str:
        """`<namespace>:v2:gen:<server>` or `...:<server>:<scope>`."""
        return f"{self.namespace}:{VERSION}:gen:{quote(server, safe='')}" + (f":{scope}" if scope else "")

    def _names(self, key: CacheKey) -> list[str]:
        return [self._generations(key.server), self._generations(key.server, key.scope), key.text(self.namespace)]

    async def get(self, key: CacheKey) -> tuple[bytes | None, Seen]:
        client = self._client()
        try:
            values: list[Any] = await client.mget(self._names(key))  # bytes or None: no decode_responses
        except _FAILURES as exc:
            raise self._failed(exc) from exc
        self._recovered()
        server, scope, found = values
        seen = (int(server or 0), int(scope or 0))
        tag, _, entry = (found or b"").partition(b"|")
        return (entry if found and tag == _tag(seen).encode() else None), seen

    async def set(self, key: CacheKey, entry: str, ttl: float, seen: Seen) -> None:
        """Only while the generations are still those the get saw (one Lua script): a read
        that a write overtook never overwrites a fresher entry."""
        client = self._client()
        try:
            value = f"{_tag(seen)}|{entry}"
            await client.eval(_SET_IF_CURRENT, 3, *self._names(key), *seen, value, max(1, round(ttl * 1000)))
        except _FAILURES as exc:
            raise self._failed(exc) from exc
        self._recovered()

    async def invalidate(self, server: str, scope: str | None) -> None:
        """INCR the counter, for every process sharing this Redis."""
        name = self._generations(server, scope)
        client = self._client()
        try:
            async with client.pipeline(transaction=False) as pipe:
                pipe.incr(name)
                pipe.pexpire(name, _GENERATION_LIFETIME_MS)
                await pipe.execute()
        except _FAILURES as exc:
            raise self._failed(exc) from exc
        self._recovered()

    async def lead(self, key: CacheKey) -> Lease | str | bytes | None:
        async def read() -> bytes | None:
            return (await self.get(key))[0]

        return await self._flights.lead(self._client(), key.text(self.namespace), read)

    async def clear(self, server: str | None = None, tool: str | None = None) -> int:
        """SCAN + UNLINK in batches: never blocks Redis the way KEYS would. Unlike get/set it
        raises the outage as an error: whoever asked to clear must know it did not happen."""
        client = self._client(probe=True)
        removed = 0
        batch: list[bytes] = []
        try:
            async for name in client.scan_iter(match=pattern(self.namespace, server, tool), count=_BATCH):
                if is_entry(self.namespace, name.decode()):
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


def _tag(seen: Seen) -> str:
    return ".".join(str(generation) for generation in seen)
