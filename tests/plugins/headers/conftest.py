"""Two streamable-HTTP MCP servers that record every HTTP request's identity headers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcpbridge.testing import serve_http
from tests.helpers.headers import RecordingServer, build, recording_app


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[RecordingServer, RecordingServer]]:
    """`crm` and `other`, each on its own port."""
    started = []
    records = []
    for _ in range(2):
        record = RecordingServer(url="")
        base, server, thread = serve_http(recording_app(record, build(record).streamable_http_app()))
        record.url = f"{base}/mcp"
        started.append((server, thread))
        records.append(record)
    yield records[0], records[1]
    for server, thread in started:
        server.should_exit = True
        thread.join(timeout=5)


@pytest.fixture
def crm(servers: tuple[RecordingServer, RecordingServer]) -> RecordingServer:
    servers[0].reset()
    return servers[0]


@pytest.fixture
def other(servers: tuple[RecordingServer, RecordingServer]) -> RecordingServer:
    servers[1].reset()
    return servers[1]
