"""Fixtures shared by the elicitation tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import serve_http

from . import elicit_servers


@pytest.fixture(scope="module")
def shop_url() -> Iterator[str]:
    """The asking server over streamable HTTP, one per test module."""
    base, server, thread = serve_http(elicit_servers.build().streamable_http_app())
    yield f"{base}/mcp"
    server.should_exit = True
    thread.join(timeout=5)
