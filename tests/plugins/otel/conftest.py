"""Fixtures of the otel plugin's tests; the span fixtures (`telemetry`, one SDK tracer
provider per process) come from tests.helpers.telemetry. Metrics use a provider passed to
the interceptor, never the global one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from mcpbridge.testing import serving
from tests.helpers.telemetry import build_server, telemetry, telemetry_session

__all__ = ["telemetry", "telemetry_session"]  # fixtures for every test here


@pytest.fixture
def metric_reader() -> tuple[MeterProvider, InMemoryMetricReader]:
    reader = InMemoryMetricReader()
    return MeterProvider(metric_readers=[reader]), reader


@pytest.fixture(scope="module")
def otel_http_url() -> Iterator[str]:
    with serving(build_server().streamable_http_app()) as url:
        yield url
