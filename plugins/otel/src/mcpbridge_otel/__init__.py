"""mcpbridge-otel: an OpenTelemetry `execute_tool` span and metrics for every tool call.

Depends on opentelemetry-api only: without an SDK every span is a no-op and the plugin
costs a few microseconds per call. Install an SDK and exporter to see traces.
"""

from __future__ import annotations

from mcpbridge import PluginConfig, hookimpl
from mcpbridge_otel.interceptor import OtelInterceptor, SpanEvents
from mcpbridge_otel.settings import OtelSettings

NAME = "otel"

__all__ = ["NAME", "OtelInterceptor", "OtelSettings", "SpanEvents"]


@hookimpl
def mcpbridge_configure(config: PluginConfig) -> None:
    config.parse(NAME, OtelSettings)


@hookimpl
def mcpbridge_interceptors(config: PluginConfig) -> list[OtelInterceptor]:
    return [OtelInterceptor(config.parse(NAME, OtelSettings), servers=config.settings.servers)]
