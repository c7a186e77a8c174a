"""Shared fixtures: the sample server over in-process, stdio and streamable HTTP, and the
services (PostgreSQL). Helpers live in `tests.helpers`, servers in `mcpbridge.testing`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import settings

from mcpbridge.testing import serving
from tests.helpers import service_url, stdio_config
from tests.servers import basic

# No per-example deadline: on a loaded machine one slow example would fail a property test
# that holds. Tests that bound time measure it themselves, with margins.
settings.register_profile("mcpbridge", deadline=None)
settings.load_profile("mcpbridge")


@pytest.fixture(scope="session")
def http_url() -> Iterator[str]:
    """The sample server over streamable HTTP (one per test session)."""
    with serving(basic.build()) as url:
        yield url


@pytest.fixture
def inprocess() -> Any:
    return basic.build()


@pytest.fixture(params=["inprocess", "stdio", "http"])
def any_server(request: pytest.FixtureRequest, http_url: str) -> dict[str, Any]:
    """The sample server's config over each transport."""
    if request.param == "inprocess":
        return {"server": basic.build()}
    if request.param == "stdio":
        return stdio_config()
    return {"url": http_url}


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """A PostgreSQL database for checkpoints and claims (`tests/services/postgres.sh start`)."""
    return service_url("MCPBRIDGE_TEST_POSTGRES_URL", "PostgreSQL (`bash tests/services/postgres.sh start`)")
