"""mcpbridge-cache: answer repeated calls of the tools its rules select without calling
the server, never across callers, fresh after every write; in memory or shared through Redis."""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import TYPE_CHECKING

from mcpbridge import DIRECT, BridgeContext, ConfigError, Plugin, PluginError, StashKey, hookimpl, lazy_exports
from mcpbridge_cache.settings import CacheSettings, Rule

if TYPE_CHECKING:
    from mcpbridge import MCPBridge
    from mcpbridge_cache.interceptor import CacheInterceptor
    from mcpbridge_cache.keys import KeyBuilder as KeyBuilder
    from mcpbridge_cache.policy import Policy as Policy
    from mcpbridge_cache.stores import MemoryStore, Store, StoreUnavailable

# The interceptor and the stores import mcp and the call pipeline: on first use only.
__getattr__ = lazy_exports(
    __name__,
    {
        "CacheInterceptor": "mcpbridge_cache.interceptor",
        "KeyBuilder": "mcpbridge_cache.keys",
        "Policy": "mcpbridge_cache.policy",
        **dict.fromkeys(("MemoryStore", "Store", "StoreUnavailable"), "mcpbridge_cache.stores"),
    },
)

__all__ = [
    "ARTIFACT_TYPE",
    "CacheInterceptor",
    "CacheSettings",
    "MemoryStore",
    "Rule",
    "Store",
    "StoreUnavailable",
    "build_store",
    "clear",
    "interceptors_of",
]

ARTIFACT_TYPE = "mcpbridge_cache"
"""The `type` of the entry this plugin adds to a call's artifact."""
NAME = "cache"
STORE = StashKey["Store"]()
"""The bridge's store, closed with the bridge."""
mcpbridge_plugin = Plugin(settings=CacheSettings, position=100, after=(DIRECT,), artifacts=(ARTIFACT_TYPE,))


def build_store(settings: CacheSettings) -> Store:
    """The store `settings.backend` asks for (Redis is imported only when used)."""
    if settings.backend == "redis":
        from mcpbridge_cache.redis_store import RedisStore

        assert settings.redis_url is not None
        return RedisStore(
            settings.redis_url,
            namespace=settings.namespace,
            timeout=settings.redis_timeout,
            retry=settings.redis_retry,
            flight_wait=settings.flight_wait,
            flight_lease=settings.flight_lease,
            max_entry_bytes=settings.max_entry_bytes,
        )
    from mcpbridge_cache.stores import MemoryStore

    return MemoryStore(settings.max_entries)


@hookimpl
def mcpbridge_check_settings(context: BridgeContext) -> None:
    """Refuse a chain with anything inside the cache: its key must cover everything that
    reaches the server (headers, `_meta`), or two callers could share an entry. The last
    layer is the core's claiming layer, which sends each call as it gets it."""
    chain = context.chain
    inside = chain[chain.index(NAME) + 1 : -1] if NAME in chain else ()
    if inside:
        offender = "MCPBridge(interceptors=...)" if inside[0] == DIRECT else f"plugin {inside[0]!r}"
        raise ConfigError(
            f"{offender} sits inside the cache (chain: {' → '.join(chain)}), so the cache's key would miss what "
            f"it adds to a call and callers could share entries: the cache must be the innermost layer; "
            f'put "{NAME}" last in [plugins] order, after "{DIRECT}" when you pass MCPBridge(interceptors=...), '
            "or leave it out of `order`"
        )


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[CacheInterceptor]:
    from mcpbridge_cache.interceptor import CacheInterceptor
    from mcpbridge_cache.keys import KeyBuilder
    from mcpbridge_cache.policy import Policy

    settings = context.settings_of(CacheSettings)
    secret = settings.secret.get_secret_value().encode() if settings.secret else os.urandom(32)
    keys = KeyBuilder(context.settings.servers, settings.partition_by, secret)
    store = context.stash[STORE] = build_store(settings)
    return [CacheInterceptor(Policy(settings), keys, store, settings.invalidate, settings.max_entry_bytes)]


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(CacheSettings)
    cached = [f"{rule.server}/{rule.tool}" for rule in settings.rules if rule.cache]
    if not settings.rules:
        return "caches nothing: no [[plugins.cache.rules]] (see docs/plugins/cache.md)"
    if not cached:
        return "caches nothing: every rule in [[plugins.cache.rules]] has cache = false"
    writes = {
        "partition": "writes invalidate per partition",
        "server": "writes invalidate per server",
        "off": 'writes invalidate nothing (invalidate = "off")',
    }[settings.invalidate]
    rules = f"{len(cached)} rule{'s' if len(cached) != 1 else ''}"
    return f"caches {rules}: {', '.join(cached)}; {writes}; {settings.backend} backend"


@hookimpl
async def mcpbridge_teardown(context: BridgeContext) -> None:
    """Release the store's connections (a Redis client reconnects if the bridge opens again)."""
    if (store := context.stash.get(STORE, None)) is not None:
        await store.aclose()


def interceptors_of(bridge: MCPBridge) -> list[CacheInterceptor]:
    from mcpbridge_cache.interceptor import CacheInterceptor

    found = [ic for ic in bridge.interceptors if isinstance(ic, CacheInterceptor)]
    if not found:
        raise PluginError(
            "this bridge has no cache: load the plugin with MCPBridge(..., plugins=['cache']) "
            "or enable it in [plugins] (it may be disabled or missing from `enabled`)"
        )
    return found


def check_server(server: str | None, configured: Collection[str]) -> None:
    """Refuse to clear the entries of a server that is not configured (a typo would clear nothing)."""
    if server is not None and server not in configured:
        raise ConfigError.unknown_server(server, configured)


async def clear(bridge: MCPBridge, server: str | None = None, tool: str | None = None) -> int:
    """Invalidate the entries of `server` / `tool` (all when both are None) in the bridge's
    cache; returns how many were removed. With Redis this clears them for every process that
    shares that Redis. Raises `StoreUnavailable` when Redis cannot be reached."""
    check_server(server, bridge.servers)
    removed = 0
    for interceptor in interceptors_of(bridge):
        removed += await interceptor.store.clear(server, tool)
    return removed
