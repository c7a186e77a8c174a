"""OpenTelemetry SDK wiring for the otel plugin's tests (and any test that looks at spans).

The global tracer provider can be set only once per process, and the mcp SDK's own spans
go to the global one, so one session fixture installs (or reuses) an SDK provider with an
in-memory exporter, and every test starts from an empty exporter (`telemetry`)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tests.helpers.waiting import PATIENCE
from tests.servers import basic


@dataclass
class Telemetry:
    exporter: InMemorySpanExporter

    def spans(self, *, wait_for: str | None = None, timeout: float = PATIENCE) -> list[ReadableSpan]:
        """Finished spans; with `wait_for`, first wait until a span of that name ended (a
        server in another thread may end its span just after the client got its answer)."""
        deadline = time.monotonic() + timeout
        while wait_for is not None and not any(s.name == wait_for for s in self.exporter.get_finished_spans()):
            if time.monotonic() > deadline:
                names = [s.name for s in self.exporter.get_finished_spans()]
                raise AssertionError(f"no span {wait_for!r} within {timeout} s; got {names}")
            time.sleep(0.01)
        return list(self.exporter.get_finished_spans())

    def one(self, name: str, **kw: Any) -> ReadableSpan:
        matches = [s for s in self.spans(**kw) if s.name == name]
        assert len(matches) == 1, f"expected one span {name!r}, got {[s.name for s in self.spans()]}"
        return matches[0]


@pytest.fixture(scope="session")
def telemetry_session() -> Telemetry:
    exporter = InMemorySpanExporter()
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Telemetry(exporter)


@pytest.fixture
def telemetry(telemetry_session: Telemetry) -> Iterator[Telemetry]:
    telemetry_session.exporter.clear()
    yield telemetry_session
    telemetry_session.exporter.clear()


def build_server() -> MCPServer:
    """The shared test server (`echo`, `divide` failing on 0, `slow`, `count` reporting progress, ...)."""
    return basic.build()
