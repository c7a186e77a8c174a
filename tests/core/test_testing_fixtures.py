"""The fixtures `mcpbridge.testing` gives plugin authors, used the way a plugin's test would."""

from __future__ import annotations

from typing import Any

from mcpbridge import PluginConfig, ToolCallHandler, ToolCallRequest, hookimpl


class GreetingPlugin:
    """A sample plugin: passes the caller's name from the runtime context to the tool."""

    mcpbridge_name = "greeting"

    @hookimpl
    def mcpbridge_interceptors(self, config: PluginConfig) -> list[Any]:
        async def add_name(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            return await handler(request.override(args={**request.args, "name": request.runtime.context["name"]}))

        return [add_name]


async def test_sample_plugin_with_fixtures(
    mcp_server: Any, mcpbridge_factory: Any, tool_runtime: Any, tool_call: Any
) -> None:
    def greet(name: str = "nobody") -> str:
        return f"hello {name}"

    async with mcpbridge_factory({"demo": mcp_server(greet)}, plugins=[GreetingPlugin()]) as bridge:
        [tool] = await bridge.list_tools()
        message = await tool.ainvoke(tool_call(tool, {}, runtime=tool_runtime({"name": "Ada"})))
    assert message.content[0]["text"] == "hello Ada"
