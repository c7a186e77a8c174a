"""mcpbridge-retry: retries MCP tool calls after transport failures and timeouts, with
exponential backoff and jitter (tenacity), only for tools that are safe to repeat.

    [plugins.retry]
    attempts = 3
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, Plugin, hookimpl, lazy_exports
from mcpbridge_retry.settings import Policy, RetrySettings, Rule

if TYPE_CHECKING:
    from mcpbridge_retry.interceptor import RetryInterceptor

# The interceptor imports mcp and tenacity: on first use only.
__getattr__ = lazy_exports(__name__, {"RetryInterceptor": "mcpbridge_retry.interceptor"})

__all__ = ["ARTIFACT_TYPE", "EVENT", "Policy", "RetryInterceptor", "RetrySettings", "Rule"]

ARTIFACT_TYPE = "mcpbridge_retry"
"""The `type` of the entry this plugin adds to a call's artifact."""
EVENT = "retry.attempt"
"""The event a retry is reported as (`request.notify`)."""

mcpbridge_plugin = Plugin(settings=RetrySettings, position=60, artifacts=(ARTIFACT_TYPE,))


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[RetryInterceptor]:
    from mcpbridge_retry.interceptor import RetryInterceptor

    return [RetryInterceptor(context.settings_of(RetrySettings))]
