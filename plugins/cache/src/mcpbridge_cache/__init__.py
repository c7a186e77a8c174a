"""mcpbridge-cache: answer repeated read-only tool calls without calling the server,
per caller identity, in memory or shared through Redis."""

from __future__ import annotations

from collections.abc import Callable, Collection

from mcpbridge import ConfigError, MCPBridge, PluginConfig, PluginError, hookimpl
from mcpbridge_cache.interceptor import ARTIFACT_TYPE, CacheInterceptor
from mcpbridge_cache.keys import KeyBuilder
from mcpbridge_cache.policy import Policy
from mcpbridge_cache.settings import CacheSettings, ToolRule
from mcpbridge_cache.stores import MemoryStore, Store, StoreUnavailable

__all__ = [
    "ARTIFACT_TYPE",
    "NAME",
    "CacheInterceptor",
    "CacheSettings",
    "MemoryStore",
    "Store",
    "StoreUnavailable",
    "ToolRule",
    "build_store",
    "clear",
    "interceptors_of",
    "settings_from",
]

NAME = "cache"


def settings_from(config: PluginConfig) -> CacheSettings:
    """`[plugins.cache]` validated; rules must name configured servers."""
    settings = config.parse(NAME, CacheSettings)
    servers = config.settings.servers
    for rule in settings.tools:
        if rule.server not in servers:
            raise ConfigError(
                f"plugin 'cache': `plugins.cache.tools` names server {rule.server!r}, which is not configured; "
                f"configured servers: {', '.join(sorted(servers)) or 'none'}"
            )
    return settings


def check_server(server: str | None, configured: Collection[str]) -> None:
    """Refuse to clear the entries of a server that is not configured (a typo would clear nothing)."""
    if server is not None and server not in configured:
        raise ConfigError(f"unknown server {server!r}; configured servers: {', '.join(configured) or 'none'}")


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
def mcpbridge_commands() -> dict[str, Callable[[list[str]], int | None]]:
    """`mcpbridge cache clear [--config F] [--server S] [--tool T]`."""

    def cache(argv: list[str]) -> int:
        from mcpbridge_cache.cli import main

        return main(argv)

    return {"cache": cache}


@hookimpl
def mcpbridge_configure(config: PluginConfig) -> None:
    settings_from(config)


@hookimpl
def mcpbridge_interceptors(config: PluginConfig) -> list[CacheInterceptor]:
    settings = settings_from(config)
    keys = KeyBuilder(config.settings.servers, settings.partition_by)
    return [CacheInterceptor(Policy(settings), keys, build_store(settings))]


def interceptors_of(bridge: MCPBridge) -> list[CacheInterceptor]:
    found = [ic for ic in bridge.interceptors if isinstance(ic, CacheInterceptor)]
    if not found:
        raise PluginError(
            "this bridge has no cache: load the plugin with MCPBridge(..., plugins=['cache']) "
            "or enable it in [plugins] (it may be disabled or missing from `enabled`)"
        )
    return found


async def clear(bridge: MCPBridge, server: str | None = None, tool: str | None = None) -> int:
    """Invalidate the entries of `server` / `tool` (all when both are None) in the bridge's
    cache; returns how many were removed. With Redis this clears them for every process that
    shares that Redis. Raises `StoreUnavailable` when Redis cannot be reached."""
    check_server(server, bridge.connections)
    removed = 0
    for interceptor in interceptors_of(bridge):
        removed += await interceptor.store.clear(server, tool)
    return removed
