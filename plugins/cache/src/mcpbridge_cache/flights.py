"""Single flight across processes: of the processes that miss one entry at the same time,
one calls the server while the others wait for the entry it stores.

The lock is a Redis key, `<namespace>:v2:flight:<rest of the entry key>`, holding a random
token. Its holder renews it while the call runs, so a holder that dies frees it within one
lease. A holder that stores nothing turns the lock into a marker for about a second, so
its waiters call the server on their own at once instead of queueing one behind another.
Anything going wrong here only means calling the server without waiting: the cache never
fails a call. So does a lock holding what no process writes (neither a token nor the
marker): it is not waited for.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import weakref
from collections.abc import Awaitable, Callable

from redis.asyncio import Redis

from mcpbridge_cache.complaints import Complaints

logger = logging.getLogger("mcpbridge_cache")

NOCACHE = "-nocache"  # the lock's value after a holder stored nothing (never a token: tokens are hex)
NOCACHE_MS = 1000
_TOKEN = re.compile(rb"[0-9a-f]{32}")
FIRST_POLL = 0.01
LAST_POLL = 0.2

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then return redis.call('del', KEYS[1]) end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""

# Releases run as their own tasks (so a cancelled caller still frees its lock); keep them
# referenced until they end.
_releasing: set[asyncio.Task[None]] = set()


class Lease:
    """The lock of one flight while this process calls the server: renewed every lease/3
    until `release()`, or until the Lease is dropped without being released."""

    def __init__(self, client: Redis, key: str, token: str, lease_ms: int) -> None:
        self._client = client
        self._key = key
        self._token = token
        self._released: asyncio.Task[None] | None = None
        self._renewal = asyncio.create_task(_renew(weakref.ref(self), client, key, token, lease_ms))

    async def release(self, stored: bool) -> None:
        """Stop renewing and free the lock if it is still ours; when nothing was `stored`,
        leave the marker that sends waiters to the server. Idempotent; never raises a Redis
        error. A cancelled caller still releases (the release runs as its own task)."""
        await self._end("" if stored else NOCACHE)

    async def _end(self, marker: str) -> None:
        self._renewal.cancel()
        if self._released is None:
            self._released = asyncio.create_task(self._unlock(marker))
            _releasing.add(self._released)
            self._released.add_done_callback(_releasing.discard)
        await asyncio.shield(self._released)

    async def _unlock(self, marker: str) -> None:
        try:
            await self._client.eval(_RELEASE, 1, self._key, self._token, marker, NOCACHE_MS)
        except Exception as exc:  # the lock expires within one lease anyway
            logger.debug("mcpbridge-cache: could not release a flight lock (%s)", type(exc).__name__)


async def _renew(lease: weakref.ref[Lease], client: Redis, key: str, token: str, lease_ms: int) -> None:
    """Holds no reference to the Lease, so a Lease dropped unreleased stops renewing."""
    while True:
        await asyncio.sleep(lease_ms / 3000)
        if lease() is None:
            return
        try:
            if not await client.eval(_RENEW, 1, key, token, lease_ms):
                logger.debug("mcpbridge-cache: a flight lock expired while its call ran")
                return
        except Exception as exc:  # try again next period; the lock may still expire
            logger.debug("mcpbridge-cache: could not renew a flight lock (%s)", type(exc).__name__)


class RedisFlights:
    """One flight per entry key across every process sharing a Redis `namespace`: `lease`
    seconds bound how long a dead leader blocks the others, `wait` how long a call waits
    for another process's call."""

    def __init__(self, *, namespace: str, lease: float, wait: float, complaints: Complaints | None = None) -> None:
        self.namespace = namespace
        self.lease_ms = max(1, round(lease * 1000))
        self.wait = wait
        self._complaints = complaints or Complaints()

    async def lead(
        self, client: Redis, key_text: str, read: Callable[[], Awaitable[str | bytes | None]]
    ) -> Lease | str | bytes | None:
        """A `Lease` when this process must call the server (then `await lease.release(stored)`);
        the entry (via `read()`) when another process stored it meanwhile; None when this
        process should call the server without leading: the leader stored nothing,
        `wait` passed, or Redis failed."""
        prefix = f"{self.namespace}:v2:"
        flight = f"{prefix}flight:{key_text.removeprefix(prefix)}"
        deadline = asyncio.get_running_loop().time() + self.wait
        try:
            return await self._lead(client, flight, read, deadline)
        except Exception as exc:
            logger.debug("mcpbridge-cache: no single flight for a call (%s)", type(exc).__name__)
            return None

    async def _lead(
        self, client: Redis, flight: str, read: Callable[[], Awaitable[str | bytes | None]], deadline: float
    ) -> Lease | str | bytes | None:
        loop = asyncio.get_running_loop()
        while True:
            token = secrets.token_hex(16)  # matches _TOKEN
            if await client.set(flight, token, nx=True, px=self.lease_ms):
                return await self._led(Lease(client, flight, token, self.lease_ms), read)
            delay = FIRST_POLL
            while True:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return None
                await asyncio.sleep(min(delay, remaining))
                delay = min(delay * 2, LAST_POLL)
                # The lock first, then the entry: a leader stores before it unlocks, so a
                # lock seen gone means its entry (if any) is readable now.
                holder = await client.get(flight)
                entry = await read()
                if entry is not None:
                    return entry
                if holder is None:
                    break  # the leader died, or stored an entry that is already gone: lead
                if isinstance(holder, str):
                    holder = holder.encode()
                if holder == NOCACHE.encode():
                    return None
                if not (isinstance(holder, bytes) and _TOKEN.fullmatch(holder)):
                    self._complaints.warn(
                        flight,
                        "mcpbridge-cache: the flight lock %s holds what no process writes; calls go to the server "
                        "without waiting for it (delete the key to restore single flight)",
                        flight,
                    )
                    return None

    @staticmethod
    async def _led(lease: Lease, read: Callable[[], Awaitable[str | bytes | None]]) -> Lease | str | bytes | None:
        """Just won the lock: a flight that ended between our miss and our lock has left
        its entry, so look once more before calling the server."""
        try:
            entry = await read()
        except asyncio.CancelledError:
            await lease._end("")  # no marker: a waiter takes the lead instead
            raise
        except Exception:
            return lease
        if entry is None:
            return lease
        await lease.release(stored=True)
        return entry
