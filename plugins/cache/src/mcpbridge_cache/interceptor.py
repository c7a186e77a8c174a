"""The cache interceptor: answer a repeated cacheable call from the store, let only one of
many concurrent identical calls reach the server (in this process, then across processes),
and make every write invalidate the entries it may have changed."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, Literal

from mcp.types import CallToolResult, Tool

from mcpbridge import ToolCallHandler, ToolCallRequest
from mcpbridge_cache import ARTIFACT_TYPE, codec
from mcpbridge_cache.complaints import Complaints
from mcpbridge_cache.keys import CacheKey, KeyBuilder, MissingIdentity
from mcpbridge_cache.policy import Policy
from mcpbridge_cache.stores import Lease, Seen, Store, StoreUnavailable


class CacheInterceptor:
    """One per bridge; the store and the in-flight table live as long as it does."""

    def __init__(
        self,
        policy: Policy,
        keys: KeyBuilder,
        store: Store,
        invalidate: Literal["partition", "server", "off"],
        max_entry_bytes: int,
    ) -> None:
        self.policy = policy
        self.keys = keys
        self.store = store
        self._per_partition = invalidate == "partition"
        self._max_entry_bytes = max_entry_bytes
        self._flights: dict[CacheKey, asyncio.Future[str | bytes | None]] = {}
        self._complaints = Complaints()

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        """Only tools whose results are cached and tools whose calls invalidate."""
        decision = self.policy.decide_for(server_name, tool.name, tool)
        return decision.ttl is not None or decision.write

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        decision = self.policy.decide(request)
        if decision.write:
            return await self._write(request, handler)
        if decision.ttl is None or request.input_responses is not None or request.request_state is not None:
            return await handler(request)  # an elicitation leg: its answers belong to this call only
        try:
            key = self.keys.key(request)
        except MissingIdentity as missing:
            return await self._bypass(request, handler, f"no value for identity source {missing}")
        except (TypeError, ValueError):
            return await self._bypass(request, handler, "arguments are not plain JSON")
        flight = self._flights.get(key)
        if flight is not None:
            return await self._follow(request, handler, key, flight)
        flight = asyncio.get_running_loop().create_future()
        self._flights[key] = flight
        entry: str | bytes | None = None
        try:
            try:
                entry, seen = await self.store.get(key)
            except StoreUnavailable:
                return await self._bypass(request, handler, "store unavailable")
            decoded = self._decoded(key, entry)
            if decoded is not None:
                return _hit(request, *decoded)
            result, entry = await self._call(request, handler, key, seen, decision.ttl)
            return result
        finally:
            if self._flights.get(key) is flight:
                del self._flights[key]
            flight.set_result(entry)

    async def _call(
        self, request: ToolCallRequest, handler: ToolCallHandler, key: CacheKey, seen: Seen, ttl: float
    ) -> tuple[Any, str | bytes | None]:
        """A miss: lead the call across processes (or take the entry another process
        stored meanwhile), call the server, store the result unless the server asked the
        client anything during the call (such an answer belongs to that call alone).
        Returns the result and the entry to share with this process's waiters."""
        try:
            lease: Lease | str | bytes | None = await self.store.lead(key)
        except StoreUnavailable:
            lease = None
        if isinstance(lease, str | bytes):
            decoded = self._decoded(key, lease)
            if decoded is not None:
                return _hit(request, *decoded, coalesced=True), lease
            lease = None
        asked = False

        def observe(event: str, data: object) -> None:
            nonlocal asked
            asked = asked or event == "server.asked"

        stored = None
        try:
            result = await handler(request.override(observers=(*request.observers, observe)))
            if not asked:
                stored = await self._keep(key, result, ttl, seen)
            _miss(request)
            return result, stored
        finally:
            if lease is not None:
                await lease.release(stored is not None)

    async def _follow(
        self,
        request: ToolCallRequest,
        handler: ToolCallHandler,
        key: CacheKey,
        flight: asyncio.Future[str | bytes | None],
    ) -> Any:
        """Wait for the identical call already under way and answer with its result. When it
        produced nothing cacheable (an error, a request for input, a failure), call the
        server ourselves: errors are never shared."""
        entry = await asyncio.shield(flight)
        decoded = self._decoded(key, entry)
        if decoded is None:
            _miss(request)
            return await handler(request)
        return _hit(request, *decoded, coalesced=True)

    async def _write(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        """A call that may change what reads return: invalidate before it is sent and again
        after it ends, so a read that raced with it cannot leave a stale entry behind."""
        scope = None
        if self._per_partition:
            with contextlib.suppress(MissingIdentity, TypeError, ValueError):  # unknown: the whole server
                scope = self.keys.scope(request)
        await self._invalidate(request.server_name, scope)
        try:
            return await handler(request)
        finally:
            await self._invalidate(request.server_name, scope)

    async def _invalidate(self, server: str, scope: str | None) -> None:
        """Also detach the reads in flight here: a read that starts after the write must not
        wait for the answer of one that started before it."""
        for key in [key for key in self._flights if key.server == server and scope in (None, key.scope)]:
            del self._flights[key]
        with contextlib.suppress(StoreUnavailable):  # the store warned; a cache never fails a call
            await self.store.invalidate(server, scope)

    async def _keep(self, key: CacheKey, result: Any, ttl: float, seen: Seen) -> str | None:
        """Store a successful CallToolResult; anything else (isError, InputRequiredResult, a
        ToolMessage or Command from an inner interceptor) is never cached."""
        if not isinstance(result, CallToolResult) or result.is_error:
            return None
        if codec.smallest_size(result) > self._max_entry_bytes:
            return None
        entry = codec.encode(result, time.time())
        if len(entry) > self._max_entry_bytes:
            return None
        try:
            await self.store.set(key, entry, ttl, seen)
        except StoreUnavailable:
            return None
        return entry

    def _decoded(self, key: CacheKey, entry: str | bytes | None) -> tuple[CallToolResult, float] | None:
        """The result and `stored_at` of an entry; None (a miss) when there is none or it is
        unreadable, which is logged once per entry: the cache never fails a call."""
        if entry is None:
            return None
        try:
            return codec.decode(entry)
        except codec.Unreadable as unreadable:
            self._complaints.bad_entry(key, f"is unreadable ({unreadable})")
            return None

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
