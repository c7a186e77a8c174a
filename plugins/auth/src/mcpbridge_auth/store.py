"""Where sign-ins keep their secrets: each person's OAuth tokens and the one-time sign-in
`state`s (with their PKCE code verifiers).

`open_store(url, secret)` answers a `SecretStore`: in-process memory, Redis or PostgreSQL,
always behind `SealedStore`, which encrypts every value (Fernet) and hides every key (its
HMAC-SHA256, hex) so neither tokens nor user ids nor states can be read in the store.

The secret (`[plugins.auth] key`) is any text; a Fernet key is derived from it with
HKDF-SHA256 (fixed labels), one for sealing values and one for naming keys, so a Fernet key
given as the secret is treated as text like any other. Several secrets separated by commas,
newest first, rotate keys: values are sealed and named with the newest, and the older ones
still open what they sealed (a get looks under each name, newest first) until it expires.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import importlib
import logging
import math
import re
import secrets
import threading
import time
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from mcpbridge import ConfigError, MCPBridgeError

logger = logging.getLogger("mcpbridge_auth")

_SEAL_LABEL = b"mcpbridge-auth store: sealing values v1"
_NAME_LABEL = b"mcpbridge-auth store: naming keys v1"
_MAKE_KEY = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'
_ACCEPTED = '"memory" (or no store), "redis://...", "rediss://...", "postgresql://..." or "postgres://..."'


class SecretStoreError(MCPBridgeError):
    """The shared store (Redis or PostgreSQL) failed or could not be reached; its text names
    the store (without credentials) and never a key or a value."""


@runtime_checkable
class SecretStore(Protocol):
    """Bytes under text keys, optionally expiring; shared by every worker of one store."""

    async def get(self, key: str) -> bytes | None:
        """The value under `key`, or None when absent or expired."""
        ...

    async def put(self, key: str, value: bytes, *, ttl: float | None = None) -> None:
        """Store `value` under `key` (replacing any), expiring after `ttl` seconds if given."""
        ...

    async def take(self, key: str) -> bytes | None:
        """Get and delete atomically: of two concurrent takers (processes), one gets it."""
        ...

    async def delete(self, key: str) -> None:
        """Forget `key` (nothing happens when absent)."""
        ...

    async def aclose(self) -> None:
        """Release connections; the store may be used again afterwards (it reconnects)."""
        ...


def open_store(url: str | None, secret: str | None) -> SecretStore:
    """The store at `url` (`[plugins.auth] store`), sealed with `secret` (`[plugins.auth] key`).

    None or "memory": this process only (without a secret, a random key per process).
    "redis://" / "rediss://": Redis (`mcpbridge-auth[redis]`). "postgresql://" /
    "postgres://": PostgreSQL (`mcpbridge-auth[postgres]`). Shared stores need a secret.
    """
    keys = _split(secret)
    url = None if url is None else url.strip()
    if not url or url.lower() == "memory":
        return SealedStore(MemoryStore(), keys or [secrets.token_urlsafe(32)])
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme not in ("redis", "rediss", "postgresql", "postgres"):
        # Never the URL itself (it may hold a password): its scheme, when it looks like one.
        shown = f"a {scheme}:// URL" if re.fullmatch(r"[a-z][a-z0-9+.-]{0,19}", scheme) else "another value"
        raise ConfigError(f"[plugins.auth] store must be {_ACCEPTED}; got {shown}")
    if not keys:
        raise ConfigError(
            "[plugins.auth] key is missing: a shared store (Redis or PostgreSQL) keeps tokens encrypted "
            f"with it, and every worker needs the same one. Make one with `{_MAKE_KEY}` and set "
            '`key = "${MCPBRIDGE_AUTH_KEY}"` under [plugins.auth]'
        )
    backend: SecretStore
    if scheme.startswith("redis"):
        _require("redis.asyncio", "Redis", "redis")
        from mcpbridge_auth.redis_store import RedisSecrets

        backend = RedisSecrets(url)
    else:
        _require("psycopg", "PostgreSQL", "postgres")
        from mcpbridge_auth.postgres_store import PostgresSecrets

        backend = PostgresSecrets(url)
    return SealedStore(backend, keys)


def _require(module: str, service: str, extra: str) -> None:
    """Import the driver now, so a missing one is a configuration error, not a failed sign-in."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(
            f"[plugins.auth] store is a {service} URL but `{module.partition('.')[0]}` is not installed: "
            f"install `mcpbridge-auth[{extra}]`"
        ) from exc


def _split(secret: str | None) -> list[str]:
    """The comma-separated secrets, newest first, blanks dropped."""
    return [part.strip() for part in (secret or "").split(",") if part.strip()]


def _derive(secret: str, label: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=label).derive(secret.encode())


def check_ttl(ttl: float | None) -> None:
    """A ttl is a positive, finite number of seconds, or None (no expiry)."""
    if ttl is not None and not (ttl > 0 and math.isfinite(ttl)):
        raise ValueError(f"a secret's ttl must be a positive number of seconds or None, not {ttl!r}")


class SealedStore:
    """A `SecretStore` over a plain one: values sealed with (Multi)Fernet, keys replaced by
    their HMAC-SHA256 (hex) under each secret. The only place that sees plaintext."""

    def __init__(self, backend: SecretStore, secrets_newest_first: Sequence[str]) -> None:
        if not secrets_newest_first:
            raise ConfigError(f"[plugins.auth] key is empty; make one with `{_MAKE_KEY}`")
        self.backend = backend
        fernets = [Fernet(base64.urlsafe_b64encode(_derive(s, _SEAL_LABEL))) for s in secrets_newest_first]
        self._fernet = MultiFernet(fernets)
        self._namers = [_derive(s, _NAME_LABEL) for s in dict.fromkeys(secrets_newest_first)]

    def names(self, key: str) -> list[str]:
        """Where `key` may be stored: its HMAC under each secret, newest first."""
        return [hmac.new(namer, key.encode(), hashlib.sha256).hexdigest() for namer in self._namers]

    def seal(self, value: bytes) -> bytes:
        return self._fernet.encrypt(value)

    def _open(self, sealed: bytes) -> bytes | None:
        try:
            return self._fernet.decrypt(sealed)
        except InvalidToken:
            logger.warning(
                "mcpbridge-auth: a stored secret does not decrypt with [plugins.auth] key (it was altered "
                "in the store, or sealed with a key this worker does not list); it is treated as absent, "
                "and the person signs in again"
            )
            return None

    async def get(self, key: str) -> bytes | None:
        for name in self.names(key):
            sealed = await self.backend.get(name)
            if sealed is not None:
                return self._open(sealed)
        return None

    async def put(self, key: str, value: bytes, *, ttl: float | None = None) -> None:
        check_ttl(ttl)
        newest, *older = self.names(key)
        await self.backend.put(newest, self.seal(value), ttl=ttl)
        for name in older:  # else a stale entry under an older name comes back once this one expires
            await self.backend.delete(name)

    async def take(self, key: str) -> bytes | None:
        for name in self.names(key):
            sealed = await self.backend.take(name)
            if sealed is not None:
                return self._open(sealed)
        return None

    async def delete(self, key: str) -> None:
        for name in self.names(key):
            await self.backend.delete(name)

    async def aclose(self) -> None:
        await self.backend.aclose()


class MemoryStore:
    """This process's dict, with expiry. A lock (held for dict operations only, never across
    an await) keeps it right when bridges on several event loops or threads share it: of
    concurrent takers, one gets the value."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[bytes, float | None]] = {}
        self._lock = threading.Lock()
        self._puts = 0

    def _live(self, key: str, *, remove: bool = False) -> bytes | None:
        """The unexpired value under `key` (removed when `remove`); call with the lock held."""
        entry = self._entries.pop(key, None) if remove else self._entries.get(key)
        if entry is None:
            return None
        value, expires = entry
        if expires is not None and time.monotonic() >= expires:
            self._entries.pop(key, None)
            return None
        return value

    async def get(self, key: str) -> bytes | None:
        await asyncio.sleep(0)
        with self._lock:
            return self._live(key)

    async def put(self, key: str, value: bytes, *, ttl: float | None = None) -> None:
        check_ttl(ttl)
        await asyncio.sleep(0)
        with self._lock:
            self._entries[key] = (bytes(value), None if ttl is None else time.monotonic() + ttl)
            self._puts += 1
            if self._puts % 256 == 0:  # expired entries nobody asks for again do not pile up
                for name in list(self._entries):
                    self._live(name)

    async def take(self, key: str) -> bytes | None:
        await asyncio.sleep(0)
        with self._lock:
            return self._live(key, remove=True)

    async def delete(self, key: str) -> None:
        await asyncio.sleep(0)
        with self._lock:
            self._entries.pop(key, None)

    async def aclose(self) -> None:
        """Nothing to release; the entries stay for the life of the store."""
