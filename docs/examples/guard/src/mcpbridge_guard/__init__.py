"""mcpbridge-guard: refuses the calls the config denies, before any server sees them.

[plugins.guard]
deny = [{server = "crm", tool = "delete_*"}]  # ToolSelector rules: globs on server and tool
read_only = true  # also refuse every tool that does not declare readOnlyHint
"""

from mcp.types import Tool
from pydantic import BaseModel, ConfigDict

from mcpbridge import (
    BridgeContext,
    Plugin,
    ToolCallError,
    ToolCallHandler,
    ToolCallRequest,
    ToolSelector,
    hookimpl,
    tool_hints,
)


class GuardSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    deny: list[ToolSelector] = []
    read_only: bool = False


mcpbridge_plugin = Plugin(settings=GuardSettings, position=25)  # inside events and otel, outside approval


class Guard:
    """Sits only on the chains of the tools it refuses: the others' calls never pass through it."""

    def __init__(self, settings: GuardSettings) -> None:
        self.settings = settings

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        denied = any(rule.selects(server_name, tool.name) for rule in self.settings.deny)
        return denied or (self.settings.read_only and not tool_hints(tool).read_only)

    async def __call__(self, call: ToolCallRequest, handler: ToolCallHandler):
        raise ToolCallError(f"tool {call.name!r} is not allowed", server_name=call.server_name, name=call.name)


@hookimpl
def mcpbridge_interceptors(context: BridgeContext):
    return [Guard(context.settings_of(GuardSettings))]
