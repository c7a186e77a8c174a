"""What a plugin author needs to test a plugin, as pytest fixtures (this package is a pytest
plugin, registered when mcpbridge is installed) and the plain helpers behind them.

async def test_my_plugin(mcp_server, mcpbridge_factory, tool_call):
    def shout(text: str) -> str:
        return text.upper()

    async with mcpbridge_factory({"demo": mcp_server(shout)}, plugins=[my_plugin]) as bridge:
        [tool] = await bridge.list_tools()
        message = await tool.ainvoke(tool_call(tool, {"text": "hi"}))
        assert message.content[0]["text"] == "HI"

The helpers work without pytest too (the demo's agent is a `ScriptedChatModel`); the HTTP
server needs `uvicorn`, the agent `langchain`, both imported only when used.
"""

from __future__ import annotations

from mcpbridge.testing._agents import (
    ScriptedChatModel,
    Turn,
    make_agent,
    make_runtime,
    make_tool_call,
    tool_call_turn,
)
from mcpbridge.testing._servers import HTTPServer, make_server, serve_http, serving, stdio_config
from mcpbridge.testing._sessions import SessionProbe

try:  # the fixtures, for pytest; the helpers above are also used without it
    from mcpbridge.testing._fixtures import (
        BridgeFactory,
        agent_factory,
        mcp_http_url,
        mcp_server,
        mcpbridge_factory,
        tool_call,
        tool_runtime,
    )
except ModuleNotFoundError as exc:  # pytest is not installed
    if exc.name != "pytest":
        raise

__all__ = [
    "BridgeFactory",
    "HTTPServer",
    "ScriptedChatModel",
    "SessionProbe",
    "Turn",
    "agent_factory",
    "make_agent",
    "make_runtime",
    "make_server",
    "make_tool_call",
    "mcp_http_url",
    "mcp_server",
    "mcpbridge_factory",
    "serve_http",
    "serving",
    "stdio_config",
    "tool_call",
    "tool_call_turn",
    "tool_runtime",
]
