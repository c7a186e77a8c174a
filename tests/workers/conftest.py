"""Worker processes that share one counting MCP server (streamable HTTP) and PostgreSQL
checkpoints; fixtures start them once per module, in parallel (each takes seconds to import)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from mcpbridge.testing import serve_http
from tests.helpers import service_url
from tests.helpers.workers import Worker
from tests.servers import counting


@pytest.fixture(scope="module")
def counting_server() -> Iterator[tuple[str, Counter[str]]]:
    server, calls = counting.build()
    served = serve_http(server)
    try:
        yield served.url, calls
    finally:
        served.stop()


@pytest.fixture(scope="module")
def checkpoints(postgres_url: str) -> str:
    """The PostgreSQL checkpointer's tables exist (workers only connect)."""

    async def setup() -> None:
        async with AsyncPostgresSaver.from_conn_string(postgres_url) as saver:
            await saver.setup()

    asyncio.run(setup())
    return postgres_url


@pytest.fixture(scope="module")
def redis_url() -> str:
    return service_url("MCPBRIDGE_TEST_REDIS_URL", "Redis (`redis-server --port 6399 ...`)")


@pytest.fixture(scope="module")
def workers(checkpoints: str, counting_server: tuple[str, Counter[str]]) -> Iterator[dict[str, Worker]]:
    """Workers "a", "b" and "victim" (for SIGKILL), started together."""
    url, _ = counting_server
    started = {name: Worker(name, checkpoints, url) for name in ("a", "b", "victim")}
    try:
        yield started
    finally:
        for worker in started.values():
            worker.stop()
