"""The fixtures `mcpbridge.testing` gives plugin authors, used the way a plugin's test would."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.types import Command

from mcpbridge import BridgeContext, ToolCallHandler, ToolCallRequest, hookimpl, pause
from mcpbridge.testing import ScriptedChatModel, stdio_config, tool_call_turn


class GreetingPlugin:
    """A sample plugin: passes the caller's name from the runtime context to the tool."""

    mcpbridge_name = "greeting"

    @hookimpl
    def mcpbridge_interceptors(self, context: BridgeContext) -> list[Any]:
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


class AskNamePlugin:
    """A sample plugin that pauses the agent to ask a person for the caller's name."""

    mcpbridge_name = "ask_name"

    @hookimpl
    def mcpbridge_interceptors(self) -> list[Any]:
        async def ask_name(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            name = pause({"type": "name", "tool": request.name}, purpose="a name", request=request, check=str)
            return await handler(request.override(args={**request.args, "name": name}))

        return [ask_name]


def greet(name: str = "nobody") -> str:
    return f"hello {name}"


async def test_a_server_over_http(mcp_server: Any, mcp_http_url: Any, mcpbridge_factory: Any) -> None:
    url = mcp_http_url(mcp_server(greet))
    assert url.startswith("http://127.0.0.1:")
    assert url.endswith("/mcp")
    async with mcpbridge_factory({"web": {"url": url}}) as bridge:
        message = await bridge.call_tool("web", "greet", {"name": "Ada"})
    assert message.content[0]["text"] == "hello Ada"


async def test_a_server_script_over_stdio(tmp_path: Path, mcpbridge_factory: Any) -> None:
    script = tmp_path / "greeter.py"
    script.write_text(
        "from mcp.server.mcpserver import MCPServer\n"
        "server = MCPServer('greeter')\n"
        "@server.tool()\n"
        "def shout(text: str) -> str:\n"
        "    return text.upper()\n"
        "server.run('stdio')\n"
    )
    config = stdio_config(script, timeout=30)
    assert config == {"command": sys.executable, "args": [str(script)], "timeout": 30}
    assert stdio_config("pkg.server", "--flag")["args"] == ["-m", "pkg.server", "--flag"]
    async with mcpbridge_factory({"local": config}) as bridge:
        message = await bridge.call_tool("local", "shout", {"text": "hi"})
    assert message.content[0]["text"] == "HI"


async def test_an_agent_pauses_and_resumes(mcp_server: Any, mcpbridge_factory: Any, agent_factory: Any) -> None:
    async with mcpbridge_factory({"demo": mcp_server(greet)}, plugins=[AskNamePlugin()]) as bridge:
        tools = await bridge.list_tools()
        agent = agent_factory([tool_call_turn(("greet", {})), lambda messages: AIMessage(messages[-1].text)], tools)
        config = {"configurable": {"thread_id": "t1"}}
        paused = await agent.ainvoke({"messages": [("user", "greet me")]}, config)
        [asked] = paused["__interrupt__"]
        assert asked.value == {"type": "name", "tool": "greet"}
        done = await agent.ainvoke(Command(resume={asked.id: "Ada"}), config)
    assert done["messages"][-1].content == "hello Ada"


def test_the_scripted_model_replies_in_order() -> None:
    model = ScriptedChatModel(turns=[tool_call_turn(("a", {"x": 1}), ("b", {})), AIMessage("second")])
    first = model.invoke("go")
    calls = [(call["name"], call["args"], call["id"]) for call in first.tool_calls]
    assert calls == [("a", {"x": 1}, "call-1"), ("b", {}, "call-2")]
    assert model.invoke("go").content == "second"
    assert model.invoke("go").content == "Done."
