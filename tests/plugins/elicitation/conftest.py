"""Fixtures shared by the elicitation tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcpbridge.testing import serving

from . import elicit_servers


@pytest.fixture(scope="module")
def shop_url() -> Iterator[str]:
    """The asking server over streamable HTTP, one per test module."""
    with serving(elicit_servers.build().streamable_http_app()) as url:
        yield url
