"""Interceptors as langchain-mcp-adapters writes them: `async (request, handler) -> result`.

The request is mcpbridge's `ToolCallRequest` (`name`, `args`, `server_name`, `headers`,
`runtime`, `override(...)`, and more). Results keep the mcp 1.x attribute names an
interceptor written against mcp 1.x reads (`result.isError`, `result.structuredContent`),
next to mcp 2.x's own (`is_error`, `structured_content`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeAlias, runtime_checkable

from langchain_core.messages import ToolMessage
from langgraph.types import Command
from mcp.types import CallToolResult
from pydantic import BaseModel

from mcpbridge import ToolCallHandler, ToolCallRequest

__all__ = ["MCPToolCallRequest", "MCPToolCallResult", "ToolCallInterceptor"]

MCPToolCallRequest: TypeAlias = ToolCallRequest
MCPToolCallResult: TypeAlias = "CallToolResult | ToolMessage | Command[Any]"


@runtime_checkable
class ToolCallInterceptor(Protocol):
    async def __call__(
        self,
        request: MCPToolCallRequest,
        handler: Callable[[MCPToolCallRequest], Awaitable[MCPToolCallResult]],
    ) -> MCPToolCallResult: ...


class LegacyCallToolResult(CallToolResult):
    """A `CallToolResult` that also answers to the mcp 1.x attribute names."""

    @property
    def isError(self) -> bool:  # the mcp 1.x name
        return self.is_error

    @isError.setter
    def isError(self, value: bool) -> None:
        self.is_error = value

    @property
    def structuredContent(self) -> dict[str, Any] | None:
        found: dict[str, Any] | None = self.structured_content
        return found

    @structuredContent.setter
    def structuredContent(self, value: dict[str, Any] | None) -> None:
        self.structured_content = value


def legacy(result: Any, named: type[BaseModel] = LegacyCallToolResult) -> Any:
    """`result` with the mcp 1.x names as well (`named`: that of its class, by default a
    `CallToolResult`'s), when it is of the class `named` extends."""
    base: type[BaseModel] = named.__mro__[1]
    if isinstance(result, base) and not isinstance(result, named):
        return named.model_construct(_fields_set=result.model_fields_set, **dict(result))
    return result


def speaking_legacy(interceptor: Any) -> Any:
    """`interceptor` as an mcpbridge interceptor whose handler returns 1.x-named results."""

    async def layer(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        async def inner(changed: ToolCallRequest) -> Any:
            return legacy(await handler(changed))

        return await interceptor(request, inner)

    layer.__qualname__ = getattr(interceptor, "__qualname__", type(interceptor).__qualname__)
    return layer
