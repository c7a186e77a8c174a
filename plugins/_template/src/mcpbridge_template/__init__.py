"""mcpbridge-template: prefixes the text of the successful results of the selected tools.

[plugins.template]
prefix = "[checked] "
tools = [{server = "crm", tool = "get_*"}]   # ToolSelector rules; default: every tool
"""

from __future__ import annotations

from mcp.types import CallToolResult, TextContent, Tool
from pydantic import BaseModel, ConfigDict

from mcpbridge import (
    BridgeContext,
    Plugin,
    ToolCallHandler,
    ToolCallInterceptor,
    ToolCallRequest,
    ToolCallResult,
    ToolSelector,
    hookimpl,
    selected,
)


class TemplateSettings(BaseModel):  # validated once by the core when a bridge is built: a typo is a ConfigError
    model_config = ConfigDict(extra="forbid", frozen=True)
    prefix: str = "[checked] "
    tools: list[ToolSelector] = [ToolSelector()]


mcpbridge_plugin = Plugin(settings=TemplateSettings, position=50)  # 0 is outermost, 100 next to the server


class PrefixText:
    """The interceptor. State lives on it, for the bridge's lifetime; nothing is shared per call."""

    def __init__(self, settings: TemplateSettings) -> None:
        self.settings = settings

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        """Asked once per tool definition: the other tools' calls never pass through this layer."""
        return any(selected(self.settings.tools, server_name, tool.name))

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> ToolCallResult:
        result: ToolCallResult = await handler(request)
        if not isinstance(result, CallToolResult) or result.is_error:
            return result
        # A new result, never an edit of the one we got: inner layers may still hold it.
        prefix = self.settings.prefix
        content = [
            item.model_copy(update={"text": prefix + item.text}) if isinstance(item, TextContent) else item
            for item in result.content
        ]
        return result.model_copy(update={"content": content})


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[ToolCallInterceptor]:
    return [PrefixText(context.settings_of(TemplateSettings))]
