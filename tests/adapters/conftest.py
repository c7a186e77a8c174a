"""The drop-in's tests: real servers over streamable HTTP, stdio and in-process, and
clients that are closed when the test ends."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from mcpbridge_adapters.client import MultiServerMCPClient

from mcpbridge.testing import serving
from tests.adapters import servers


@pytest.fixture(scope="module")
def math_url() -> Iterator[str]:
    with serving(servers.math()) as url:
        yield url


@pytest.fixture(scope="module")
def behaviours_url() -> Iterator[str]:
    with serving(servers.behaviours()) as url:
        yield url


@pytest.fixture
async def make_client() -> AsyncIterator[Callable[..., MultiServerMCPClient]]:
    """`make_client(connections, **options)`: a client (no mcpbridge plugins unless given)
    closed after the test."""
    made: list[MultiServerMCPClient] = []

    def make(connections: dict[str, Any], **options: Any) -> MultiServerMCPClient:
        options.setdefault("plugins", [])
        made.append(MultiServerMCPClient(connections, **options))
        return made[-1]

    yield make
    for client in made:
        await client.aclose()
