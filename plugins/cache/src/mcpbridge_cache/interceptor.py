"""The cache interceptor: answer a repeated read-only call from the store, and let only
one of many concurrent identical calls reach the server (single-flight)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mcp.types import CallToolResult

from mcpbridge import ToolCallHandler, ToolCallRequest
from mcpbridge_cache import codec
from mcpbridge_cache.keys import CacheKey, KeyBuilder, MissingIdentity
from mcpbridge_cache.policy import Policy
from mcpbridge_cache.stores import Store, StoreUnavailable

ARTIFACT_TYPE = "mcpbridge_cache"


class CacheInterceptor:
    """One per bridge; the store and the in-flight table live as long as it does."""

    def __init__(self, policy: Policy, keys: KeyBuilder, store: Store) -> None:
        self.policy = policy
        self.keys = keys
        self.store = store
        self._flights: dict[CacheKey, asyncio.Future[str | bytes | None]] = {}

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        ttl = self.policy.ttl(request)
        if ttl is None:
            return await handler(request)
        try:
            key = self.keys.key(request)
        except MissingIdentity as missing:
            return await self._bypass(request, handler, f"no value for identity source {missing}")
        except (TypeError, ValueError):
            return await self._bypass(request, handler, "arguments are not plain JSON")
        flight = self._flights.get(key)
        if flight is not None:
            return await self._follow(request, handler, flight)
        flight = asyncio.get_running_loop().create_future()
        self._flights[key] = flight
        entry: str | bytes | None = None
        try:
            try:
                entry = await self.store.get(key)
            except StoreUnavailable:
                return await self._bypass(request, handler, "store unavailable")
            decoded = codec.decode(entry) if entry is not None else None
            if decoded is not None:
                return _hit(request, *decoded)
            entry = None
            result = await handler(request)
            entry = await self._keep(key, result, ttl)
            _miss(request)
            return result
        finally:
            del self._flights[key]
            flight.set_result(entry)

    async def _follow(
        self, request: ToolCallRequest, handler: ToolCallHandler, flight: asyncio.Future[str | bytes | None]
    ) -> Any:
        """Wait for the identical call already under way and answer with its result. When it
        produced nothing cacheable (an error, a request for input, a failure), call the
        server ourselves: errors are never shared."""
        entry = await asyncio.shield(flight)
        decoded = codec.decode(entry) if entry is not None else None
        if decoded is None:
            _miss(request)
            return await handler(request)
        return _hit(request, *decoded, coalesced=True)

    async def _keep(self, key: CacheKey, result: Any, ttl: float) -> str | None:
        """Store a successful CallToolResult; anything else (isError, InputRequiredResult, a
        ToolMessage or Command from an inner interceptor) is never cached."""
        if not isinstance(result, CallToolResult) or result.is_error:
            return None
        entry = codec.encode(result, time.time())
        try:
            await self.store.set(key, entry, ttl)
        except StoreUnavailable:
            return None
        return entry

    async def _bypass(self, request: ToolCallRequest, handler: ToolCallHandler, reason: str) -> Any:
        request.artifact.append({"type": ARTIFACT_TYPE, "hit": False, "bypass": reason})
        request.notify("cache.bypass", server_name=request.server_name, name=request.name, reason=reason)
        return await handler(request)


def _hit(
    request: ToolCallRequest, result: CallToolResult, stored_at: float, *, coalesced: bool = False
) -> CallToolResult:
    age = round(max(0.0, time.time() - stored_at), 3)
    entry: dict[str, Any] = {"type": ARTIFACT_TYPE, "hit": True, "age_s": age}
    if coalesced:
        entry["coalesced"] = True
    request.artifact.append(entry)
    request.notify("cache.hit", server_name=request.server_name, name=request.name, age_s=age, coalesced=coalesced)
    return result


def _miss(request: ToolCallRequest) -> None:
    request.artifact.append({"type": ARTIFACT_TYPE, "hit": False})
    request.notify("cache.miss", server_name=request.server_name, name=request.name)
