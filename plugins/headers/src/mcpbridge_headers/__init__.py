"""mcpbridge-headers: per-call HTTP headers for MCP servers, taken from the LangGraph run's
context, state or config (or the environment, a literal, or your own function).

    [plugins.headers.servers.crm]
    x-user-id = "context.user_id"
"""

from __future__ import annotations

from mcpbridge import ConfigError, PluginConfig, hookimpl
from mcpbridge_headers.interceptor import HeadersInterceptor, InvalidHeaderValue, MissingHeaderValue, ServerHeaders
from mcpbridge_headers.settings import HeaderProvider, HeaderSpec, HeadersSettings
from mcpbridge_headers.sources import Source, parse_source, redact

NAME = "headers"

__all__ = [
    "HeaderProvider",
    "HeadersInterceptor",
    "InvalidHeaderValue",
    "MissingHeaderValue",
    "build_interceptor",
    "redact",
]


@hookimpl
def mcpbridge_configure(config: PluginConfig) -> None:
    build_interceptor(config)


@hookimpl
def mcpbridge_interceptors(config: PluginConfig) -> list[HeadersInterceptor]:
    return [build_interceptor(config)]


def build_interceptor(config: PluginConfig) -> HeadersInterceptor:
    """The interceptor for one bridge; refuses headers for servers that cannot carry them."""
    settings = config.parse(NAME, HeadersSettings)
    servers = config.settings.servers
    for name in {*settings.servers, *settings.providers}:
        if name not in servers:
            raise ConfigError(
                f"[plugins.headers] configures headers for server {name!r}, which is not configured; "
                f"configured servers: {', '.join(sorted(servers)) or 'none'}"
            )
        transport = servers[name].transport
        if transport != "http":
            raise ConfigError(
                f"[plugins.headers] configures headers for server {name!r}, a {transport} server, which carries no "
                "HTTP headers: headers only reach `url` (streamable HTTP) servers; remove "
                f"[plugins.headers.servers.{name}] (and providers.{name}) or serve it over HTTP"
            )
    plans = {
        name: ServerHeaders(
            name,
            [_source(name, header, spec, settings) for header, spec in settings.servers.get(name, {}).items()],
            settings.providers.get(name),
        )
        for name in {*settings.servers, *settings.providers}
    }
    _check_duplicates(plans)
    return HeadersInterceptor(plans)


def _source(server: str, header: str, spec: str | HeaderSpec, settings: HeadersSettings) -> Source:
    if isinstance(spec, HeaderSpec):
        on_missing = spec.on_missing or settings.on_missing
        spec = spec.source
    else:
        on_missing = settings.on_missing
    return parse_source(server, header, spec, skip_missing=on_missing == "skip")


def _check_duplicates(plans: dict[str, ServerHeaders]) -> None:
    for plan in plans.values():
        seen: set[str] = set()
        for source in plan.sources:
            if source.header in seen:
                raise ConfigError(
                    f"[plugins.headers.servers.{plan.server}] sets header {source.header!r} twice "
                    "(header names ignore case): keep one"
                )
            seen.add(source.header)
