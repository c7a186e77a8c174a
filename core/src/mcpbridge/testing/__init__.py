"""pytest fixtures for plugin authors (installed as a pytest plugin with mcpbridge).

async def test_my_plugin(mcp_server, mcpbridge_factory, tool_call):
    def shout(text: str) -> str:
        return text.upper()

    server = mcp_server(shout)
    async with mcpbridge_factory({"demo": server}, plugins=[my_plugin]) as bridge:
        [tool] = await bridge.list_tools()
        message = await tool.ainvoke(tool_call(tool, {"text": "hi"}))
        assert message.content[0]["text"] == "HI"
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, cast

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.prebuilt import ToolRuntime
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from mcpbridge._bridge import MCPBridge
from mcpbridge._pipeline import ToolCallInterceptor
from mcpbridge._tools import MCPTool

_ids = itertools.count(1)


def make_server(
    *functions: Callable[..., Any], name: str = "test", annotations: Mapping[str, ToolAnnotations] | None = None
) -> MCPServer:
    """An in-process MCP server whose tools are the given plain functions (name = function
    name, description = docstring); `annotations` maps tool names to ToolAnnotations."""
    server = MCPServer(name)
    for function in functions:
        if function.__name__ == "<lambda>":
            raise ValueError("mcp_server() names each tool after its function: pass `def` functions, not lambdas")
        server.tool(annotations=(annotations or {}).get(function.__name__))(function)
    return server


def make_runtime(
    context: Any = None, *, tool_call_id: str | None = None, state: Any = None, config: Mapping[str, Any] | None = None
) -> ToolRuntime[Any, Any]:
    """A LangGraph `ToolRuntime` as ToolNode would inject it, with the given context."""
    return ToolRuntime(
        state=state if state is not None else {},
        context=context,
        config=cast(RunnableConfig, dict(config or {})),
        stream_writer=lambda chunk: None,
        tool_call_id=tool_call_id or f"call-{next(_ids)}",
        store=None,
    )


def make_tool_call(
    tool: MCPTool, args: Mapping[str, Any], *, id: str | None = None, runtime: Any = None
) -> dict[str, Any]:
    """A model-style ToolCall for `tool` (pass it to `tool.ainvoke`); `runtime` is injected
    the way ToolNode does it."""
    call_args = dict(args)
    if runtime is not None:
        call_args["runtime"] = runtime
    return {"type": "tool_call", "name": tool.name, "args": call_args, "id": id or f"call-{next(_ids)}"}


BridgeFactory = Callable[..., AbstractAsyncContextManager[MCPBridge]]


@pytest.fixture
def mcp_server() -> Callable[..., MCPServer]:
    """`mcp_server(*functions, name=..., annotations=...)` → an in-process MCPServer."""
    return make_server


@pytest.fixture
def mcpbridge_factory() -> BridgeFactory:
    """`async with mcpbridge_factory(servers, plugins=[...], interceptors=[...]) as bridge:`.
    Only the plugins you pass are loaded (none are autoloaded)."""

    @asynccontextmanager
    async def factory(
        servers: Mapping[str, Any],
        *,
        plugins: Sequence[object | str] = (),
        interceptors: Sequence[ToolCallInterceptor] = (),
        **options: Any,
    ) -> AsyncIterator[MCPBridge]:
        async with MCPBridge(servers, plugins=list(plugins), interceptors=interceptors, **options) as bridge:
            yield bridge

    return factory


@pytest.fixture
def tool_runtime() -> Callable[..., ToolRuntime[Any, Any]]:
    """`tool_runtime(context={...})` → a ToolRuntime as ToolNode injects it."""
    return make_runtime


@pytest.fixture
def tool_call() -> Callable[..., dict[str, Any]]:
    """`tool_call(tool, args, runtime=...)` → a ToolCall dict for `tool.ainvoke`."""
    return make_tool_call
