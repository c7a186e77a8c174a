"""mcpbridge-cache: answer repeated read-only tool calls without calling the server,
per caller identity, in memory or shared through Redis."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from mcpbridge import AddCommand, ConfigError, MCPBridge, Plugin, PluginConfig, PluginError, hookimpl
from mcpbridge_cache.interceptor import ARTIFACT_TYPE, CacheInterceptor
from mcpbridge_cache.keys import KeyBuilder
from mcpbridge_cache.policy import Policy
from mcpbridge_cache.settings import CacheSettings, Rule
from mcpbridge_cache.stores import MemoryStore, Store, StoreUnavailable

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

mcpbridge_plugin = Plugin(settings=CacheSettings, position=40)


def build_store(settings: CacheSettings) -> Store:
    """The store `settings.backend` asks for (Redis is imported only when used)."""
    if settings.backend == "redis":
        from mcpbridge_cache.redis_store import RedisStore

        assert settings.redis_url is not None
        return RedisStore(
            settings.redis_url, namespace=settings.namespace, timeout=settings.redis_timeout, retry=settings.redis_retry
        )
    return MemoryStore(settings.max_entries)


@hookimpl
def mcpbridge_interceptors(settings: CacheSettings, config: PluginConfig) -> list[CacheInterceptor]:
    keys = KeyBuilder(config.settings.servers, settings.partition_by)
    return [CacheInterceptor(Policy(settings), keys, build_store(settings))]


@hookimpl
async def mcpbridge_teardown(interceptors: Sequence[CacheInterceptor]) -> None:
    """Release the stores' connections (Redis clients reconnect if the bridge opens again)."""
    for interceptor in interceptors:
        await interceptor.store.aclose()


@hookimpl
def mcpbridge_commands(add_command: AddCommand) -> None:
    """`mcpbridge cache clear [--server S] [--tool T]`."""
    from mcpbridge_cache.cli import add

    add(add_command)


def interceptors_of(bridge: MCPBridge) -> list[CacheInterceptor]:
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
        raise ConfigError(f"unknown server {server!r}; configured servers: {', '.join(configured) or 'none'}")


async def clear(bridge: MCPBridge, server: str | None = None, tool: str | None = None) -> int:
    """Invalidate the entries of `server` / `tool` (all when both are None) in the bridge's
    cache; returns how many were removed. With Redis this clears them for every process that
    shares that Redis. Raises `StoreUnavailable` when Redis cannot be reached."""
    check_server(server, bridge.connections)
    removed = 0
    for interceptor in interceptors_of(bridge):
        removed += await interceptor.store.clear(server, tool)
    return removed
