"""mcpbridge-redact: replaces secrets in tool results with [REDACTED] before the model sees them.

[plugins.redact]
patterns = ['sk-[A-Za-z0-9]{8,}', 'password=\\S+']
"""

from __future__ import annotations

import re

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict

from mcpbridge import (
    BridgeContext,
    Plugin,
    ToolCallHandler,
    ToolCallInterceptor,
    ToolCallRequest,
    ToolCallResult,
    hookimpl,
)


class RedactSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    patterns: list[str] = [r"sk-[A-Za-z0-9]{8,}"]
    replacement: str = "[REDACTED]"


mcpbridge_plugin = Plugin(settings=RedactSettings, position=15)
"""Just inside the events plugin, so that nothing outside it sees a secret."""


class Redactor:
    """Rewrites the text items of every result; the server still sees the real call."""

    def __init__(self, settings: RedactSettings) -> None:
        self.pattern = re.compile("|".join(f"(?:{p})" for p in settings.patterns))
        self.replacement = settings.replacement

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> ToolCallResult:
        result = await handler(request)
        if isinstance(result, CallToolResult):
            for item in result.content:
                if isinstance(item, TextContent):
                    item.text = self.pattern.sub(self.replacement, item.text)
        return result


@hookimpl
def mcpbridge_check_settings(context: BridgeContext) -> None:
    for pattern in context.settings_of(RedactSettings).patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"[plugins.redact] patterns: {pattern!r} is not a regular expression: {exc}") from None


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[ToolCallInterceptor]:
    return [Redactor(context.settings_of(RedactSettings))]
