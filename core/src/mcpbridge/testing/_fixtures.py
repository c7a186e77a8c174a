"""The pytest fixtures of `mcpbridge.testing` (pytest loads that package as a plugin)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import pytest
from langgraph.prebuilt import ToolRuntime
from mcp.server.mcpserver import MCPServer

from mcpbridge import MCPBridge, ToolCallInterceptor
from mcpbridge.testing._agents import make_agent, make_runtime, make_tool_call
from mcpbridge.testing._servers import HTTPServer, make_server, serve_http

BridgeFactory = Callable[..., AbstractAsyncContextManager[MCPBridge]]


@pytest.fixture
def mcp_server() -> Callable[..., MCPServer]:
    """`mcp_server(*functions, name=..., annotations={tool: ToolAnnotations})` → an
    in-process MCPServer whose tools are your `def` functions (`make_server`)."""
    return make_server


@pytest.fixture
def mcp_http_url() -> Iterator[Callable[[MCPServer | Any], str]]:
    """`mcp_http_url(server)` → "http://127.0.0.1:<port>/mcp": the MCPServer (or ASGI app)
    served over streamable HTTP by uvicorn on a free loopback port, until the test ends
    (`serve_http`). Config it as `{"url": url}`."""
    started: list[HTTPServer] = []

    def serve(app: MCPServer | Any) -> str:
        started.append(serve_http(app))
        return started[-1].url

    yield serve
    for served in started:
        served.stop()


@pytest.fixture
def mcpbridge_factory() -> BridgeFactory:
    """`async with mcpbridge_factory(servers, plugins=[...], interceptors=[...], **options) as
    bridge:` an `MCPBridge` with only the plugins you pass (none are autoloaded)."""

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
    """`tool_runtime(context={...}, state=..., config=..., tool_call_id=...)` → a LangGraph
    ToolRuntime as ToolNode injects it (`make_runtime`)."""
    return make_runtime


@pytest.fixture
def tool_call() -> Callable[..., dict[str, Any]]:
    """`tool_call(tool, args, runtime=..., id=...)` → a model-style ToolCall dict for
    `tool.ainvoke`, which then returns a ToolMessage (`make_tool_call`)."""
    return make_tool_call


@pytest.fixture
def agent_factory() -> Callable[..., Any]:
    """`agent_factory(model_or_turns, tools, **create_agent_options)` → a LangChain agent with
    an in-memory checkpointer, so its pauses can be resumed with `Command(resume=...)` on the
    same `thread_id`; a list of turns (`tool_call_turn(...)`, AIMessages) plays the model
    (`ScriptedChatModel`). Needs `langchain` (`make_agent`)."""
    return make_agent
