"""Shared fixtures: the sample server over in-process, stdio and streamable HTTP. The
servers themselves come from `mcpbridge.testing` (`serve_http` and `serving` are imported
from here by tests that predate it)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpbridge import testing
from mcpbridge.testing import serve_http, serving
from tests.servers import basic

__all__ = ["ROOT", "serve_http", "serving", "service_url", "stdio_config"]

ROOT = Path(__file__).resolve().parent.parent


def stdio_config(module: str = "tests.servers.basic", **extra: Any) -> dict[str, Any]:
    """A server module of this repository over stdio (run from the repository root)."""
    return testing.stdio_config(module, cwd=str(ROOT), **extra)


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


def service_url(variable: str, what: str) -> str:
    """The URL of a test service from `variable`; without it the test is skipped, or fails
    when `MCPBRIDGE_TEST_REQUIRE_SERVICES=1` (as in CI, where `.ci/run` starts them)."""
    url = os.environ.get(variable)
    if not url:
        message = f"{variable} is not set: start {what} and export its URL"
        if os.environ.get("MCPBRIDGE_TEST_REQUIRE_SERVICES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return url


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """A PostgreSQL database for checkpoints and claims (`tests/services/postgres.sh start`)."""
    return service_url("MCPBRIDGE_TEST_POSTGRES_URL", "PostgreSQL (`bash tests/services/postgres.sh start`)")
