"""Secrets as Redis keys: `SET ... PX` to store, `GETDEL` to take (atomic: of concurrent
takers, one gets the value), Redis's own expiry. Keys and values arrive sealed (store.py):
what Redis holds is HMAC names and Fernet tokens. `redis` is imported on first use
(install `mcpbridge-auth[redis]`); Redis 6.2 or later (GETDEL)."""

from __future__ import annotations

import asyncio
import weakref
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcpbridge import ConfigError, redact_url
from mcpbridge_auth.store import SecretStoreError, check_ttl

PREFIX = "mcpbridge-auth:"


class RedisSecrets:
    """A plain `SecretStore` on Redis; one client per event loop (a redis.asyncio client
    belongs to the loop it first ran on)."""

    def __init__(self, url: str, *, prefix: str = PREFIX, timeout: float = 5.0) -> None:
        if any(name.lower() == "decode_responses" for name in parse_qs(urlsplit(url).query)):
            raise ConfigError(
                "[plugins.auth] store sets decode_responses: the store reads Redis replies as bytes "
                "(sealed values are not text). Remove it from the URL"
            )
        self.url = url
        self.prefix = prefix
        self._shown_url = redact_url(url)  # never a password in errors
        self._timeout = timeout
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()

    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            try:
                from redis.asyncio import Redis
            except ImportError as exc:
                raise SecretStoreError(
                    "[plugins.auth] store is a Redis URL but the `redis` package is not installed: "
                    "install `mcpbridge-auth[redis]`"
                ) from exc
            client = Redis.from_url(self.url, socket_timeout=self._timeout, socket_connect_timeout=self._timeout)
            self._clients[loop] = client
        return client

    async def _run(self, what: str, command: str, *args: Any, **options: Any) -> Any:
        """One command; any failure becomes a `SecretStoreError` naming the store and the fix."""
        client = self._client()  # first: it names the extra to install when redis is missing
        from redis.exceptions import RedisError, ResponseError

        try:
            return await getattr(client, command)(*args, **options)
        except ResponseError as exc:
            hint = " (GETDEL needs Redis 6.2 or later)" if "unknown command" in str(exc).lower() else ""
            raise SecretStoreError(
                f"mcpbridge-auth: Redis at {self._shown_url} refused to {what}: {exc}{hint}"
            ) from exc
        except (RedisError, OSError, TimeoutError) as exc:
            raise SecretStoreError(
                f"mcpbridge-auth: Redis at {self._shown_url} could not {what} ({type(exc).__name__}); check "
                "that it runs and that [plugins.auth] store points at it (with its password, if it needs one)"
            ) from exc

    async def get(self, key: str) -> bytes | None:
        return _bytes(await self._run("read a secret", "get", self.prefix + key))

    async def put(self, key: str, value: bytes, *, ttl: float | None = None) -> None:
        check_ttl(ttl)
        px = None if ttl is None else max(1, round(ttl * 1000))
        await self._run("store a secret", "set", self.prefix + key, value, px=px)

    async def take(self, key: str) -> bytes | None:
        return _bytes(await self._run("take a secret", "getdel", self.prefix + key))

    async def delete(self, key: str) -> None:
        await self._run("delete a secret", "delete", self.prefix + key)

    async def aclose(self) -> None:
        """Close the client of the running loop (others close with their loops)."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()


def _bytes(found: object) -> bytes | None:
    return bytes(found) if isinstance(found, (bytes, bytearray, memoryview)) else None
