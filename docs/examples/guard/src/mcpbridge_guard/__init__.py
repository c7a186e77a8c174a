"""mcpbridge-guard: refuses the calls the config denies, before any server sees them.

[plugins.guard]
deny = [{server = "crm", tool = "delete_*"}]  # ToolSelector rules: globs on server and tool
read_only = true  # also refuse every tool that does not declare readOnlyHint
"""

from pydantic import BaseModel, ConfigDict

from mcpbridge import Plugin, ToolCallError, ToolCallHandler, ToolCallRequest, ToolSelector, hookimpl, tool_hints


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    deny: list[ToolSelector] = []
    read_only: bool = False


mcpbridge_plugin = Plugin(settings=Settings, position=25)  # inside events and otel, outside approval


@hookimpl
def mcpbridge_interceptors(settings: Settings):
    async def guard(call: ToolCallRequest, handler: ToolCallHandler):
        denied = any(rule.selects(call.server_name, call.name) for rule in settings.deny)
        if denied or (settings.read_only and not tool_hints(call.tool).read_only):
            raise ToolCallError(f"tool {call.name!r} is not allowed", server_name=call.server_name, name=call.name)
        return await handler(call)

    return [guard]
