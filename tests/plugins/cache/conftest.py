"""Fixtures of the cache tests: the counting server (tests.helpers.cache), a bridge with the
cache plugin over it, and the Redis the Redis tests need."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import mcpbridge_cache
import pytest
from mcp.server.mcpserver import MCPServer
from redis.asyncio import Redis

from mcpbridge import MCPBridge
from tests.helpers import service_url
from tests.helpers.cache import SECRET, BridgeMaker, counting_server


@pytest.fixture
def calls() -> Counter[str]:
    return Counter()


@pytest.fixture
def server(calls: Counter[str]) -> MCPServer:
    return counting_server(calls)


@pytest.fixture
def cached_bridge(server: MCPServer) -> BridgeMaker:
    """`async with cached_bridge(**cache_settings) as bridge:` a bridge with only the cache
    plugin (passed as a module) over the counting server, named "s"."""

    @asynccontextmanager
    async def make(
        servers: dict[str, Any] | None = None, interceptors: Any = (), **settings: Any
    ) -> AsyncIterator[MCPBridge]:
        async with MCPBridge(
            servers or {"s": server},
            plugins=[mcpbridge_cache],
            interceptors=interceptors,
            plugin_settings={"cache": settings},
        ) as bridge:
            yield bridge

    return make


@pytest.fixture
def redis_url() -> str:
    return service_url("MCPBRIDGE_TEST_REDIS_URL", "a redis-server for the Redis tests")


@pytest.fixture
def namespace() -> str:
    """A fresh key namespace per test, so tests sharing one Redis never see each other."""
    return f"mcpbridge-test:{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def redis(redis_url: str, namespace: str) -> AsyncIterator[Redis]:
    """A client to look at what the plugin stored; removes the test's keys afterwards."""
    client = Redis.from_url(redis_url)
    yield client
    keys = [key async for key in client.scan_iter(match=f"{namespace}:*")]
    if keys:
        await client.unlink(*keys)
    await client.aclose()


@pytest.fixture
def redis_settings(redis_url: str, namespace: str, redis: Redis) -> dict[str, Any]:
    """`[plugins.cache]` for the test's Redis namespace (cleaned up afterwards)."""
    return {"backend": "redis", "redis_url": redis_url, "namespace": namespace, "secret": SECRET}
