"""mcpbridge-template: prefixes the text of every successful tool result."""

from __future__ import annotations

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict

from mcpbridge import PluginConfig, ToolCallHandler, ToolCallRequest, ToolCallResult, hookimpl

NAME = "template"


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    prefix: str = "[checked] "


@hookimpl
def mcpbridge_configure(config: PluginConfig) -> None:
    config.parse(NAME, Settings)


@hookimpl
def mcpbridge_interceptors(config: PluginConfig) -> list[object]:
    settings = config.parse(NAME, Settings)

    async def prefix_text(request: ToolCallRequest, handler: ToolCallHandler) -> ToolCallResult:
        result: ToolCallResult = await handler(request)
        if isinstance(result, CallToolResult) and not result.is_error:
            for item in result.content:
                if isinstance(item, TextContent):
                    item.text = settings.prefix + item.text
        return result

    return [prefix_text]
