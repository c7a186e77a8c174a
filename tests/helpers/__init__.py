"""Helpers the tests share across folders; conftest.py files hold only fixtures and hooks.
What plugin authors need too lives in `mcpbridge.testing` (`serving`, `serve_http`,
`stdio_config`, ...). Topic modules: `thirdparty`, `workers`, `adapters`, `cache`,
`telemetry`, `headers`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mcpbridge import testing

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root."""


def stdio_config(module: str = "tests.servers.basic", **extra: Any) -> dict[str, Any]:
    """A server module of this repository over stdio (run from the repository root)."""
    return testing.stdio_config(module, cwd=str(ROOT), **extra)


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
