"""Tools over a session the user opened (`load_mcp_tools(session)`) are bounded in time as
the client's shared sessions' tools are: an interceptor's `request.timeout`, else the
session's own limit, else mcpbridge's default (`Settings.timeout`); a call that runs out of
it is the same error ToolMessage naming the tool and the limit (raised, with
`ToolTimeoutError` as its cause, under `handle_tool_errors=False`), not the SDK's `MCPError`.

The server's `hang` tool waits on an event that never comes: only the limit ends the call."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException
from mcpbridge_adapters.client import MultiServerMCPClient
from mcpbridge_adapters.sessions import create_session
from mcpbridge_adapters.tools import load_mcp_tools

from mcpbridge import Settings, ToolCallHandler, ToolCallRequest, ToolTimeoutError
from mcpbridge._tools import arguments
from mcpbridge.testing import serve_http

LIMIT = 0.5
"""The test's own time limit: the hanging call's only way to end."""
SERVER = '''
import sys

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("slow")


@server.tool()
async def hang() -> str:
    """Wait for an event that never comes."""
    await anyio.Event().wait()
    return "never"


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    server.run()
'''


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "slow_server.py"
    path.write_text(SERVER)
    return path


def stdio(script: Path, **extra: Any) -> Any:
    return {"transport": "stdio", "command": sys.executable, "args": [str(script)], **extra}


@asynccontextmanager
async def own_tools(connection: Any, **options: Any) -> AsyncIterator[dict[str, BaseTool]]:
    """The tools of a session opened here, as the adapters open one."""
    async with create_session(connection) as session:
        await session.initialize()
        yield {tool.name: tool for tool in await load_mcp_tools(session, server_name="slow", **options)}


async def limited(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """A user's interceptor giving the call a time limit of its own."""
    return await handler(request.override(timeout=LIMIT))


def call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args or {}, "id": f"call-{name}"}


def text(message: ToolMessage) -> str:
    return "".join(block["text"] for block in message.content if isinstance(block, dict))


TIMED_OUT = f"MCP tool 'hang' on server 'slow' timed out after {LIMIT:g} s"


async def shared_session_timeout(script: Path) -> ToolMessage:
    """The same call on a client's shared session, under the same limit."""
    async with MultiServerMCPClient({"slow": stdio(script)}, plugins=[], timeout=LIMIT) as client:
        tools = {tool.name: tool for tool in await client.get_tools()}
        message: ToolMessage = await tools["hang"].ainvoke(call("hang"))
        return message


async def test_an_interceptors_limit_times_out_as_on_a_shared_session(script: Path) -> None:
    async with own_tools(stdio(script), tool_interceptors=[limited]) as tools:
        message: ToolMessage = await tools["hang"].ainvoke(call("hang"))
        after: ToolMessage = await tools["echo"].ainvoke(call("echo", {"text": "still here"}))
    shared = await shared_session_timeout(script)
    assert message.status == "error"
    assert text(message).startswith(TIMED_OUT), message.content
    assert (message.status, text(message)) == (shared.status, text(shared))
    assert text(after) == "still here"  # the session goes on


async def test_the_bridges_default_limit_applies_when_nothing_sets_one(
    script: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Settings().timeout == arguments.DEFAULT_TIMEOUT
    monkeypatch.setattr(arguments, "DEFAULT_TIMEOUT", LIMIT)  # the default, made short enough to wait for
    async with own_tools(stdio(script)) as tools:
        message: ToolMessage = await tools["hang"].ainvoke(call("hang"))
    assert message.status == "error"
    assert text(message).startswith(TIMED_OUT), message.content


async def test_a_timeout_raises_with_tool_timeout_error_as_its_cause(script: Path) -> None:
    async with own_tools(stdio(script), tool_interceptors=[limited], handle_tool_errors=False) as tools:
        with pytest.raises(ToolException, match=TIMED_OUT) as raised:
            await tools["hang"].ainvoke(call("hang"))
    assert isinstance(raised.value.__cause__, ToolTimeoutError)
    assert raised.value.__cause__.limit == LIMIT


@pytest.fixture
def slow_url(script: Path) -> Iterator[str]:
    spec = importlib.util.spec_from_file_location("slow_server", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the same server, in-process, served over streamable HTTP
    served = serve_http(module.server)
    yield served.url
    served.stop()


async def test_the_sessions_own_limit_is_kept(slow_url: str) -> None:
    """A session opened with a limit of its own keeps it: the default does not replace it."""
    session_limit = 2.0  # the handshake and listing answer to it too: room for a loaded machine
    connection = {"transport": "http", "url": slow_url, "session_kwargs": {"read_timeout_seconds": session_limit}}
    async with own_tools(connection) as tools:
        message: ToolMessage = await tools["hang"].ainvoke(call("hang"))
    assert message.status == "error"
    assert text(message).startswith(f"MCP tool 'hang' on server 'slow' timed out after {session_limit:g} s")
