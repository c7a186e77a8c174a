"""Where entries live: the Store protocol and the embedded in-memory LRU store."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Protocol

from mcpbridge import MCPBridgeError
from mcpbridge_cache.keys import CacheKey


class StoreUnavailable(MCPBridgeError):
    """The store cannot be reached right now: a call goes to the server uncached, a clear
    fails with this error."""


class Store(Protocol):
    """Entries are encoded text (see codec.py) that expire after `ttl` seconds."""

    async def get(self, key: CacheKey) -> str | bytes | None: ...

    async def set(self, key: CacheKey, entry: str, ttl: float) -> None: ...

    async def clear(self, server: str | None = None, tool: str | None = None) -> int:
        """Remove the entries of `server` / `tool` (every entry when both are None); returns
        how many were removed."""
        ...

    async def aclose(self) -> None:
        """Release connections (of the running event loop)."""
        ...


class MemoryStore:
    """A bounded LRU in this process. The lock makes `clear()` safe from another thread
    (e.g. sync code calling it while the bridge's loop thread serves calls)."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[CacheKey, tuple[float, str]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, key: CacheKey) -> str | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            if found[0] <= time.monotonic():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return found[1]

    async def set(self, key: CacheKey, entry: str, ttl: float) -> None:
        with self._lock:
            self._entries[key] = (time.monotonic() + ttl, entry)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

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
