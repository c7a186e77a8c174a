"""Claims as Redis keys: `SET NX EX`, so the first owner holds the key until it expires."""

from __future__ import annotations

import math
from typing import Any

_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
"""Delete the key only when `owner` holds it, atomically."""


class RedisClaims:
    """One key per claimed call; the same owner may claim again (a retry of its own call)."""

    def __init__(self, url: str, *, ttl: float, key_prefix: str) -> None:
        self.url = url
        self.ttl = max(1, math.ceil(ttl))
        self.key_prefix = key_prefix
        self._client: Any = None

    def _redis(self) -> Any:
        if self._client is None:
            from redis.asyncio import Redis

            self._client = Redis.from_url(self.url)
        return self._client

    async def claim(self, key: str, owner: str) -> str:
        client = self._redis()
        name = self.key_prefix + key
        for _ in range(3):  # a holder whose claim expires in between gives way to ours
            if await client.set(name, owner, nx=True, ex=self.ttl):
                return owner
            holder = await client.get(name)
            if holder is not None:
                return str(holder.decode() if isinstance(holder, bytes) else holder)
        return "another worker (its claim keeps expiring)"

    async def release(self, key: str, owner: str) -> None:
        await self._redis().eval(_RELEASE, 1, self.key_prefix + key, owner)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
