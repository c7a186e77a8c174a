"""Where entries live: the Store protocol and the embedded in-memory LRU store.

Invalidation is by generations: `invalidate` bumps a counter (of a server, or of one scope
of it), `get` returns the counters it saw along with the entry, and `set` stores the entry
tagged with them, only if they are still current. An entry whose tag differs from the
current counters is a miss, so a read that started before a write invalidated never leaves
a result that looks fresh after it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any, Protocol, TypeAlias

from mcpbridge import MCPBridgeError
from mcpbridge_cache.keys import CacheKey

Seen: TypeAlias = tuple[Any, ...]
"""The generations a `get` saw (opaque to callers); hand it back to `set`."""


class StoreUnavailable(MCPBridgeError):
    """The store cannot be reached right now: a call goes to the server uncached, a clear
    fails with this error."""


class Lease(Protocol):
    """This process calls the server for a key; others wait for it (across processes)."""

    async def release(self, stored: bool) -> None:
        """The call ended; `stored` says whether an entry was stored for the waiters."""
        ...


class Store(Protocol):
    """Entries are encoded text (see codec.py) that expire after `ttl` seconds."""

    async def get(self, key: CacheKey) -> tuple[str | bytes | None, Seen]: ...

    async def set(self, key: CacheKey, entry: str, ttl: float, seen: Seen) -> None: ...

    async def invalidate(self, server: str, scope: str | None) -> None:
        """Make the entries of `server` for `scope` (all its scopes when None) misses."""
        ...

    async def clear(self, server: str | None = None, tool: str | None = None) -> int:
        """Remove the entries of `server` / `tool` (every entry when both are None); returns
        how many were removed."""
        ...

    async def lead(self, key: CacheKey) -> Lease | str | bytes | None:
        """A Lease when this process must call the server, an entry another process stored
        while we waited, or None: call the server without leading."""
        ...

    async def aclose(self) -> None:
        """Release connections (of the running event loop)."""
        ...


class _Alone:
    """The lease of a store that no other process shares: nobody waits for it."""

    async def release(self, stored: bool) -> None:
        """Nothing to release."""


ALONE = _Alone()


class MemoryStore:
    """A bounded LRU in this process. The lock makes `clear()` safe from another thread
    (e.g. sync code calling it while the bridge's loop thread serves calls)."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[CacheKey, tuple[float, str, Seen]] = OrderedDict()
        self._servers: dict[str, int] = {}
        self._scopes: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, key: CacheKey) -> tuple[str | None, Seen]:
        with self._lock:
            seen = self._seen(key)
            found = self._entries.get(key)
            if found is None:
                return None, seen
            if found[0] <= time.monotonic() or found[2] != seen:
                del self._entries[key]
                return None, seen
            self._entries.move_to_end(key)
            return found[1], seen

    async def set(self, key: CacheKey, entry: str, ttl: float, seen: Seen) -> None:
        with self._lock:
            if seen != self._seen(key):
                return  # a write overtook the read: never overwrite a fresher entry
            self._entries[key] = (time.monotonic() + ttl, entry, seen)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    async def invalidate(self, server: str, scope: str | None) -> None:
        with self._lock:
            if scope is not None and len(self._scopes) < 4 * self.max_entries:
                self._scopes[server, scope] = self._scopes.get((server, scope), 0) + 1
                return
            servers = {server}
            if scope is not None:
                # Too many scope counters: forget them all, which is safe once the counter
                # of every server they belong to has moved on.
                servers.update(name for name, _ in self._scopes)
                self._scopes.clear()
            for name in servers:
                self._servers[name] = self._servers.get(name, 0) + 1

    async def lead(self, key: CacheKey) -> _Alone:
        return ALONE

    async def aclose(self) -> None:
        """Nothing to release: entries live as long as the store."""

    async def clear(self, server: str | None = None, tool: str | None = None) -> int:
        with self._lock:
            doomed = [
                key
                for key in self._entries
                if (server is None or key.server == server) and (tool is None or key.tool == tool)
            ]
            for key in doomed:
                del self._entries[key]
            return len(doomed)

    def _seen(self, key: CacheKey) -> Seen:
        return self._servers.get(key.server, 0), self._scopes.get((key.server, key.scope), 0)
