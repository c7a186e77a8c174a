"""`url` servers share one TLS context: building one loads the CA store (30-50 ms on the
event loop), and every connect and reconnect of every HTTP server used to build its own."""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Iterator

import pytest

from mcpbridge import MCPBridge
from mcpbridge.testing import HTTPServer, serve_http
from tests.servers import basic


@pytest.fixture
def three_servers() -> Iterator[list[HTTPServer]]:
    served = [serve_http(basic.build().streamable_http_app()) for _ in range(3)]
    yield served
    for server in served:
        server.stop()


def _ca_store_loads(profile: cProfile.Profile) -> int:
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return sum(calls for (_, _, name), (_, calls, *_) in stats.items() if "load_verify_locations" in name)


async def test_connecting_http_servers_loads_the_ca_store_once_per_process(three_servers: list[HTTPServer]) -> None:
    servers = {f"s{i}": {"url": server.base_url + "/mcp"} for i, server in enumerate(three_servers)}
    profile = cProfile.Profile()
    profile.enable()
    try:
        async with MCPBridge(servers, plugins=[], tool_name_prefix=True) as bridge:
            assert len({tool.metadata["server_name"] for tool in await bridge.list_tools() if tool.metadata}) == 3
        async with MCPBridge(servers, plugins=[], tool_name_prefix=True) as bridge:  # and every reconnect
            await bridge.list_tools()
    finally:
        profile.disable()
    assert _ca_store_loads(profile) <= 1
