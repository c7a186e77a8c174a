"""mcpbridge-headers: per-call HTTP headers for MCP servers, taken from the LangGraph run's
context, state or config (or the environment, a literal, or your own function).

    [plugins.headers.servers.crm]
    x-user-id = "context.user_id"
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, ConfigError, Plugin, hookimpl, install_log_redaction, lazy_exports
from mcpbridge_headers.settings import Header, HeaderProvider, HeadersSettings

if TYPE_CHECKING:
    from mcpbridge_headers.interceptor import HeadersInterceptor, InvalidHeaderValue, MissingHeaderValue, redact

# The interceptor imports the core's call pipeline (mcp): on first use only.
__getattr__ = lazy_exports(
    __name__,
    dict.fromkeys(
        ("HeadersInterceptor", "InvalidHeaderValue", "MissingHeaderValue", "redact"), "mcpbridge_headers.interceptor"
    ),
)

__all__ = [
    "Header",
    "HeaderProvider",
    "HeadersInterceptor",
    "HeadersSettings",
    "InvalidHeaderValue",
    "MissingHeaderValue",
    "redact",
]

mcpbridge_plugin = Plugin(settings=HeadersSettings, position=90)

_CREDENTIAL = re.compile(r"auth|cookie|key|token|secret|session|passw", re.IGNORECASE)
"""Header names whose fixed values are credentials (`Authorization`, `X-API-Key`, `Cookie`)."""


@hookimpl
def mcpbridge_check_settings(context: BridgeContext) -> None:
    """Headers only reach `url` (streamable HTTP or SSE) servers: refuse them for any other."""
    settings = context.settings_of(HeadersSettings)
    for name in sorted({*settings.servers, *settings.providers}):
        transport = context.settings.servers[name].transport
        if transport not in ("http", "sse"):
            raise ConfigError(
                f"[plugins.headers] configures headers for server {name!r}, a {transport} server, which carries no "
                "HTTP headers: headers only reach `url` (streamable HTTP or SSE) servers; remove "
                f"[plugins.headers.servers.{name}] (and providers.{name}) or serve it over HTTP"
            )


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[HeadersInterceptor]:
    from mcpbridge_headers.interceptor import HeadersInterceptor

    settings = context.settings_of(HeadersSettings)
    # Fixed values of credential headers are secrets the bridge knows, as a server's static
    # `headers` are: a server quoting one back (an error naming the refused token) must not show
    # it to the model, a span, an event or a log. (Not `x-tenant = "acme"`: hiding every "acme"
    # would hide nothing secret.)
    install_log_redaction(
        header.source
        for table in settings.servers.values()
        for name, header in table.items()
        if isinstance(header.source, str) and _CREDENTIAL.search(name)
    )
    return [HeadersInterceptor(settings)]
