"""mcpbridge-template: prefixes the text of the successful results of the selected tools.

[plugins.template]
prefix = "[checked] "
tools = [{server = "crm", tool = "get_*"}]   # ToolSelector rules; default: every tool
"""

from __future__ import annotations

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict

from mcpbridge import (
    Plugin,
    ToolCallHandler,
    ToolCallInterceptor,
    ToolCallRequest,
    ToolCallResult,
    ToolSelector,
    hookimpl,
    selected,
)


class Settings(BaseModel):  # validated once by the core when a bridge is built: a typo is a ConfigError
    model_config = ConfigDict(extra="forbid", frozen=True)
    prefix: str = "[checked] "
    tools: list[ToolSelector] = [ToolSelector()]


mcpbridge_plugin = Plugin(settings=Settings, position=50)  # 0 is outermost, 100 next to the server


@hookimpl
def mcpbridge_interceptors(settings: Settings) -> list[ToolCallInterceptor]:
    async def prefix_text(request: ToolCallRequest, handler: ToolCallHandler) -> ToolCallResult:
        result: ToolCallResult = await handler(request)
        chosen = any(selected(settings.tools, request.server_name, request.name))
        if not (chosen and isinstance(result, CallToolResult) and not result.is_error):
            return result
        # A new result, never an edit of the one we got: inner layers may still hold it.
        content = [
            item.model_copy(update={"text": settings.prefix + item.text}) if isinstance(item, TextContent) else item
            for item in result.content
        ]
        return result.model_copy(update={"content": content})

    return [prefix_text]
