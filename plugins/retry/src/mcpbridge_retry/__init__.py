"""mcpbridge-retry: retries MCP tool calls after transport failures and timeouts, with
exponential backoff and jitter (tenacity), only for tools that are safe to repeat.

    [plugins.retry]
    attempts = 3
"""

from __future__ import annotations

from mcpbridge import ConfigError, PluginConfig, hookimpl
from mcpbridge_retry.interceptor import ARTIFACT_TYPE, EVENT, RetryInterceptor
from mcpbridge_retry.settings import Policy, RetrySettings

NAME = "retry"

__all__ = ["ARTIFACT_TYPE", "EVENT", "Policy", "RetryInterceptor", "build_interceptor"]


@hookimpl
def mcpbridge_configure(config: PluginConfig) -> None:
    build_interceptor(config)


@hookimpl
def mcpbridge_interceptors(config: PluginConfig) -> list[RetryInterceptor]:
    return [build_interceptor(config)]


def build_interceptor(config: PluginConfig) -> RetryInterceptor:
    """The interceptor for one bridge; refuses overrides for servers that are not configured."""
    settings = config.parse(NAME, RetrySettings)
    for name in settings.servers:
        if name not in config.settings.servers:
            raise ConfigError(
                f"[plugins.retry.servers.{name}] configures retries for server {name!r}, which is not configured; "
                f"configured servers: {', '.join(sorted(config.settings.servers)) or 'none'}"
            )
    return RetryInterceptor(settings)
