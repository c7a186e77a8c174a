"""The interceptor: compute one call's headers and hand them to the core, which puts them on
exactly that call's HTTP POST of the persistent session."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import ToolException

from mcpbridge import ToolCallHandler, ToolCallRequest
from mcpbridge_headers.settings import HeaderProvider
from mcpbridge_headers.sources import Source, checked_value, redact, valid_name

logger = logging.getLogger("mcpbridge_headers")


class MissingHeaderValue(ToolException):
    """A configured header has no value for this call; the server was not called."""


class InvalidHeaderValue(ToolException):
    """A header's value cannot be sent (wrong type, or outside RFC 9110: control characters,
    non-ASCII text, spaces at either end); the server was not called."""


@dataclass(frozen=True, slots=True)
class ServerHeaders:
    """Everything that makes the headers of one server's calls."""

    server: str
    sources: Sequence[Source] = ()
    provider: HeaderProvider | None = None

    async def resolve(self, request: ToolCallRequest) -> dict[str, str]:
        """This call's headers, keyed by lower-case name: names ignore case, so a provider's
        `X-Tenant` replaces a configured `x-tenant` instead of both being sent."""
        headers: dict[str, str] = {}
        for source in self.sources:
            value = source.read(request.runtime)
            if value is None:
                if source.skip_missing:
                    continue
                raise MissingHeaderValue(self._missing(source, request))
            headers[source.header] = self._checked(value, f"from `{source.spec}`", source.header)
        if self.provider is not None:
            headers.update(await self._provided(self.provider, request))
        return headers

    async def _provided(self, provider: HeaderProvider, request: ToolCallRequest) -> dict[str, str]:
        provided = provider(request)
        if inspect.isawaitable(provided):
            provided = await provided
        if provided is None:
            return {}
        if not isinstance(provided, Mapping):
            raise InvalidHeaderValue(
                f"the header provider for server {self.server!r} returned a {type(provided).__name__}; "
                "it must return a dict of header name to value (or None)"
            )
        headers: dict[str, str] = {}
        for name, value in provided.items():
            if not isinstance(name, str) or not valid_name(name):
                raise InvalidHeaderValue(
                    f"the header provider for server {self.server!r} returned the header name {name!r}, which is "
                    "not a valid HTTP header name (an RFC 9110 token, and not one the transport sets itself, such as "
                    "content-length or mcp-session-id); the server was not called"
                )
            if value is not None:
                headers[name.lower()] = self._checked(value, "from the header provider", name)
        return headers

    def _checked(self, value: Any, origin: str, name: str) -> str:
        try:
            return checked_value(value, f"server {self.server!r}, header {name!r} {origin}", name)
        except ValueError as exc:
            raise InvalidHeaderValue(f"{exc}; the server was not called") from None

    def _missing(self, source: Source, request: ToolCallRequest) -> str:
        key = ".".join(source.path)
        if request.runtime is None:
            why = "the call has no LangGraph runtime (call the tool through an agent or ToolNode, or pass `runtime`)"
        else:
            why = f"the run's {source.origin} has no value for {key!r}"
            if source.origin == "context":
                why += f": pass it when invoking the agent, e.g. `context={{{key.split('.')[0]!r}: ...}}`"
        return (
            f"header {source.header!r} for server {self.server!r} reads `{source.spec}`, but {why}. "
            f'The MCP tool {request.name!r} was not called; set `on_missing = "skip"` in [plugins.headers] '
            "to call it without the header instead"
        )


class HeadersInterceptor:
    """Adds the configured headers to calls of the servers they are configured for, and only those."""

    def __init__(self, servers: Mapping[str, ServerHeaders]) -> None:
        self._servers = dict(servers)

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        plan = self._servers.get(request.server_name)
        if plan is None:
            return await handler(request)
        headers = await plan.resolve(request)
        outer = request.headers or {}
        if outer:
            # Headers an outer interceptor set explicitly win over configured ones, whatever their case.
            taken = {name.lower() for name in outer}
            headers = {name: value for name, value in headers.items() if name not in taken}
        if not headers:
            return await handler(request)
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("mcpbridge-headers: %s/%s sends %s", request.server_name, request.name, redact(headers))
        return await handler(request.override(headers={**headers, **outer}))
