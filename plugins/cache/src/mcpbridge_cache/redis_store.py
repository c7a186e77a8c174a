"""The Redis store: entries shared by every process and worker that points at one Redis.

An entry is `<generations>|<encoded result>` under its key with a TTL; a get is one MGET
of the server's and the scope's generation counters and the entry. A cache must never
turn an outage into errors: when Redis cannot be reached, every operation raises
`StoreUnavailable` (the call then goes to the server uncached), one warning is logged per
outage, and Redis is left alone for `retry` seconds so calls do not each pay a connect
timeout. Nor nonsense: whatever Redis holds at a key, a get answers a miss (see
generations.py for counters; an entry without a tag, of another type or over
`max_entry_bytes` is never handed on, and is logged once).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import weakref
from urllib.parse import quote

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from mcpbridge import redact_url
from mcpbridge_cache import generations
from mcpbridge_cache.complaints import Complaints
from mcpbridge_cache.flights import RedisFlights
from mcpbridge_cache.keys import VERSION, CacheKey, is_entry, pattern
from mcpbridge_cache.stores import Lease, Seen, StoreUnavailable

logger = logging.getLogger("mcpbridge_cache")
_FAILURES = (RedisError, OSError, TimeoutError)
_BATCH = 500
_TAG = re.compile(rb"[0-9]{1,19}\.[0-9]{1,19}")
_LONGEST_TAG = 40
"""`<generation>.<generation>|`: 19 digits each at most."""


class RedisStore:
    def __init__(
        self,
        url: str,
        *,
        namespace: str,
        timeout: float,
        retry: float,
        flight_wait: float,
        flight_lease: float,
        max_entry_bytes: int,
    ) -> None:
        self.url = url
        self.namespace = namespace
        self._shown_url = redact_url(url)  # never a password in logs or errors
        self._timeout = timeout
        self._retry = retry
        self._max_entry_bytes = max_entry_bytes
        self._complaints = Complaints()
        self._flights = RedisFlights(
            namespace=namespace, lease=flight_lease, wait=flight_wait, complaints=self._complaints
        )
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
        """One MGET; a second round trip only when a counter is missing or holds nonsense."""
        client = self._client()
        names = self._names(key)
        try:
            reply = await client.mget(names)  # bytes or None each: no decode_responses
            server, scope, found = reply if isinstance(reply, list) and len(reply) == 3 else (None, None, None)
            seen: Seen = (generations.number(server), generations.number(scope))
            if None in seen:
                seen, wrong = await generations.current(client, names[:2])
                self._reset(wrong)
        except _FAILURES as exc:
            raise self._failed(exc) from exc
        self._recovered()
        return self._entry(key, found, seen), seen

    def _entry(self, key: CacheKey, found: object, seen: Seen) -> bytes | None:
        """The encoded result of a reply when it is tagged with the generations `seen`."""
        if not isinstance(found, bytes):  # missing, or of another type: a miss that `set` overwrites
            return None
        if len(found) > self._max_entry_bytes + _LONGEST_TAG:
            self._complaints.bad_entry(key, f"has {len(found)} bytes, over max_entry_bytes, and is never decoded")
            return None
        tag, bar, entry = found.partition(b"|")
        if tag == _tag(seen).encode():
            return entry
        if not (bar and _TAG.fullmatch(tag)):  # not merely stale: the cache never wrote it
            self._complaints.bad_entry(key, "is unreadable (no generation tag)")
        return None

    async def set(self, key: CacheKey, entry: str, ttl: float, seen: Seen) -> None:
        """Only while the generations are still those the get saw (one Lua script): a read
        that a write overtook never overwrites a fresher entry."""
        client = self._client()
        try:
            value = f"{_tag(seen)}|{entry}"
            ttl_ms = max(1, round(ttl * 1000))
            await client.eval(generations.SET_IF_CURRENT, 3, *self._names(key), *seen, value, ttl_ms)
        except _FAILURES as exc:
            raise self._failed(exc) from exc
        self._recovered()

    async def invalidate(self, server: str, scope: str | None) -> None:
        """Bump the counter, for every process sharing this Redis."""
        client = self._client()
        try:
            wrong = await generations.bump(client, self._generations(server, scope))
        except _FAILURES as exc:
            raise self._failed(exc) from exc
        self._recovered()
        self._reset(wrong)

    def _reset(self, wrong: str) -> None:
        """Only the process that reset a counter says so (the reset is atomic): once."""
        if wrong:
            logger.warning(
                "mcpbridge-cache: in Redis at %s the generation counter %s; it is reset to a fresh generation for "
                "every process, so the entries stored under it are misses from now on",
                self._shown_url,
                wrong,
            )

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
