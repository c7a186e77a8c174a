"""mcpbridge-retry: retries MCP tool calls after transport failures and timeouts, with
exponential backoff and jitter (tenacity), only for tools that are safe to repeat.

    [plugins.retry]
    attempts = 3
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpbridge import Plugin, hookimpl, lazy_exports
from mcpbridge_retry.names import ARTIFACT_TYPE, EVENT
from mcpbridge_retry.settings import Policy, RetrySettings, Rule

if TYPE_CHECKING:
    from mcpbridge_retry.interceptor import RetryInterceptor

# The interceptor imports mcp and tenacity: on first use only.
__getattr__ = lazy_exports(__name__, {"RetryInterceptor": "mcpbridge_retry.interceptor"})

__all__ = ["ARTIFACT_TYPE", "EVENT", "Policy", "RetryInterceptor", "RetrySettings", "Rule"]

mcpbridge_plugin = Plugin(settings=RetrySettings, position=60, artifacts=(ARTIFACT_TYPE,))


@hookimpl
def mcpbridge_interceptors(settings: RetrySettings) -> list[RetryInterceptor]:
    from mcpbridge_retry.interceptor import RetryInterceptor

    return [RetryInterceptor(settings)]
