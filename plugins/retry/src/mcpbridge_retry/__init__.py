"""mcpbridge-retry: retries MCP tool calls after transport failures and timeouts, with
exponential backoff and jitter (tenacity), only for tools that are safe to repeat.

    [plugins.retry]
    attempts = 3
"""

from __future__ import annotations

from mcpbridge import Plugin, hookimpl
from mcpbridge_retry.interceptor import ARTIFACT_TYPE, EVENT, RetryInterceptor
from mcpbridge_retry.settings import Policy, RetrySettings, Rule

__all__ = ["ARTIFACT_TYPE", "EVENT", "Policy", "RetryInterceptor", "RetrySettings", "Rule"]

mcpbridge_plugin = Plugin(settings=RetrySettings, position=60, artifacts=(ARTIFACT_TYPE,))


@hookimpl
def mcpbridge_interceptors(settings: RetrySettings) -> list[RetryInterceptor]:
    return [RetryInterceptor(settings)]
