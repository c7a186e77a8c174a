"""What the store keeps of a person's sign-in: their grant (tokens, the client, the
endpoints to refresh and revoke with), under keys whose parts cannot run into each other;
and the per-key locks that keep one process from doing the same OAuth work twice at once."""

from __future__ import annotations

import asyncio
import json
import weakref
from dataclasses import dataclass

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


@dataclass(slots=True)
class Grant:
    """One person's tokens for one resource, as stored (JSON, sealed by the store)."""

    token: OAuthToken
    expires_at: float | None
    scope: str | None
    """The scopes asked for (the union, after a step-up)."""
    client: OAuthClientInformationFull
    token_endpoint: str
    revocation_endpoint: str | None

    def dump(self) -> bytes:
        return json.dumps(
            {
                "token": self.token.model_dump(mode="json", exclude_none=True),
                "expires_at": self.expires_at,
                "scope": self.scope,
                "client": self.client.model_dump(mode="json", exclude_none=True),
                "token_endpoint": self.token_endpoint,
                "revocation_endpoint": self.revocation_endpoint,
            }
        ).encode()

    @classmethod
    def load(cls, raw: bytes) -> Grant:
        data = json.loads(raw)
        return cls(
            OAuthToken.model_validate(data["token"]),
            data["expires_at"],
            data["scope"],
            OAuthClientInformationFull.model_validate(data["client"]),
            data["token_endpoint"],
            data["revocation_endpoint"],
        )


def key(kind: str, *parts: str | int | None) -> str:
    """A store key whose parts cannot run into each other (a user id may hold any character)."""
    return f"{kind}:{json.dumps(parts)}"


class KeyedLocks:
    """One `asyncio.Lock` per key (and event loop), kept only while a call holds or awaits it:
    the single flight of a registration, a sign-in, a code exchange or a refresh within one
    process. Workers sharing a store are kept apart by its atomic `take` alone."""

    def __init__(self) -> None:
        self._locks: weakref.WeakValueDictionary[tuple[asyncio.AbstractEventLoop, str], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    def of(self, key: str) -> asyncio.Lock:
        """The lock of `key` on the running loop (an app's callback may run on a loop of its own)."""
        slot = (asyncio.get_running_loop(), key)
        lock = self._locks.get(slot)
        if lock is None:
            lock = self._locks[slot] = asyncio.Lock()
        return lock
