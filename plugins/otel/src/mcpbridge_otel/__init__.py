"""mcpbridge-otel: an OpenTelemetry `execute_tool` span and metrics for every tool call.

Depends on opentelemetry-api only: without an SDK every span is a no-op and the plugin
costs a few microseconds per call. Install an SDK and exporter to see traces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, Plugin, hookimpl, lazy_exports
from mcpbridge_otel.settings import OtelSettings

if TYPE_CHECKING:
    from mcpbridge_otel.interceptor import OtelInterceptor, SpanEvents

# The interceptor imports OpenTelemetry and the core's call pipeline: on first use only.
__getattr__ = lazy_exports(__name__, dict.fromkeys(("OtelInterceptor", "SpanEvents"), "mcpbridge_otel.interceptor"))

__all__ = ["OtelInterceptor", "OtelSettings", "SpanEvents"]

mcpbridge_plugin = Plugin(settings=OtelSettings, position=20)


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[OtelInterceptor]:
    from mcpbridge_otel.interceptor import OtelInterceptor

    return [OtelInterceptor(context.settings_of(OtelSettings), servers=context.settings.servers)]
