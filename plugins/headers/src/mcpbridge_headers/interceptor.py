"""The interceptor: compute one call's headers and hand them to the core, which puts them on
exactly that call's HTTP POST of the persistent session."""

from __future__ import annotations

import inspect
import logging
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from mcpbridge import ToolCallError, ToolCallHandler, ToolCallRequest, ValueSource, header_problem
from mcpbridge_headers.settings import HeaderProvider, HeadersSettings

if TYPE_CHECKING:
    from mcp.types import Tool

logger = logging.getLogger("mcpbridge_headers")


class MissingHeaderValue(ToolCallError):
    """A configured header has no value for this call; the server was not called."""


class InvalidHeaderValue(ToolCallError):
    """A header's value cannot be sent (wrong type, or outside RFC 9110: control characters,
    non-ASCII text, spaces at either end); the server was not called."""


class ServerHeaders:
    """Everything that makes the headers of one server's calls."""

    def __init__(self, server_name: str, settings: HeadersSettings) -> None:
        self.server_name = server_name
        headers = settings.servers.get(server_name, {})
        self.fixed = {name: h.source for name, h in headers.items() if isinstance(h.source, str)}
        self.sources = [
            (name, h.source, (h.on_missing or settings.on_missing) == "skip")
            for name, h in headers.items()
            if isinstance(h.source, ValueSource)
        ]
        self.provider: HeaderProvider | None = settings.providers.get(server_name)

    async def resolve(self, request: ToolCallRequest) -> dict[str, str]:
        """This call's headers, keyed by lower-case name: names ignore case, so a provider's
        `X-Tenant` replaces a configured `x-tenant` instead of both being sent."""
        headers = dict(self.fixed)
        for name, source, skip_missing in self.sources:
            value = source.read(request)
            if value is None:
                if skip_missing:
                    continue
                raise MissingHeaderValue(self._missing(name, source, request), **_call(request))
            headers[name] = self._checked(request, value, name, f"from `{source}`")
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
                f"the header provider for server {self.server_name!r} returned a {type(provided).__name__}; "
                "it must return a dict of header name to value (or None)",
                **_call(request),
            )
        headers: dict[str, str] = {}
        for name, value in provided.items():
            if header_problem(name) is not None:
                raise InvalidHeaderValue(
                    f"the header provider for server {self.server_name!r} returned the header name {name!r}, which "
                    "is not a valid HTTP header name (an RFC 9110 token, and not one the transport sets itself, such "
                    "as content-length or mcp-session-id); the server was not called",
                    **_call(request),
                )
            if value is not None:
                headers[name.lower()] = self._checked(request, value, name, "from the header provider")
        return headers

    def _checked(self, request: ToolCallRequest, value: Any, name: str, origin: str) -> str:
        """`value` as header text; refuses what cannot be one (never quoting the value)."""
        if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal | uuid.UUID):
            problem: str | None = f"got a {type(value).__name__}; a header value must be a string or a number"
        else:
            value = str(value)
            problem = header_problem(name, value)
        if problem is None:
            return str(value)
        where = f"server {self.server_name!r}, header {name!r} {origin}"
        raise InvalidHeaderValue(f"{where}: {problem}; the server was not called", **_call(request))

    def _missing(self, name: str, source: ValueSource, request: ToolCallRequest) -> str:
        key = ".".join(source.path)
        if source.origin == "header":
            why = f"the call carries no header {key!r}"
        elif request.runtime is None:
            why = "the call has no LangGraph runtime (call the tool through an agent or ToolNode, or pass `runtime`)"
        else:
            why = f"the run's {source.origin} has no value for {key!r}"
            if source.origin == "context":
                why += f": pass it when invoking the agent, e.g. `context={{{source.path[0]!r}: ...}}`"
        return (
            f"header {name!r} for server {self.server_name!r} reads `{source}`, but {why}. "
            f'The MCP tool {request.name!r} was not called; set `on_missing = "skip"` in [plugins.headers] '
            "to call it without the header instead"
        )


def _call(request: ToolCallRequest) -> dict[str, str]:
    return {"server_name": request.server_name, "name": request.name}


class HeadersInterceptor:
    """Adds the configured headers to calls of the servers they are configured for, and only those."""

    def __init__(self, settings: HeadersSettings) -> None:
        self._servers = {name: ServerHeaders(name, settings) for name in {*settings.servers, *settings.providers}}

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        """Only the tools of servers with headers configured."""
        return server_name in self._servers

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


def redact(headers: Mapping[str, str]) -> dict[str, str]:
    """Header names with their values hidden, for logs and errors."""
    return {name: f"<redacted {len(value)} chars>" for name, value in headers.items()}
