"""Sessions that survive what real servers do: restarts, idle deaths, their own error codes,
malformed results, and progress delivered in the context of the call it belongs to."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.runnables.config import var_child_runnable_config

from mcpbridge import MCPBridge, ServerConnectionError
from mcpbridge.testing import SessionProbe, serve_http, serving
from tests.helpers import stdio_config
from tests.helpers.waiting import until
from tests.servers import basic, raw_jsonrpc

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

RAW_STDIO = stdio_config("tests.servers.raw_jsonrpc", mode="legacy")


async def call(bridge: MCPBridge, server: str, tool: str, args: dict[str, Any] | None = None) -> ToolMessage:
    return await bridge.call_tool(server, tool, args or {})


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


@pytest.fixture(params=["stdio", "http"])
def raw_server(request: pytest.FixtureRequest) -> Any:
    if request.param == "stdio":
        yield RAW_STDIO
        return
    with serving(raw_jsonrpc.http_app()) as url:
        yield {"url": url, "mode": "legacy"}


@pytest.mark.parametrize(
    ("tool", "code", "words"),
    [("rate_limited", -32000, "rate limited"), ("server_timeout", -32001, "upstream database timed out")],
)
async def test_a_server_error_is_that_calls_answer_not_a_broken_session(
    raw_server: dict[str, Any], tool: str, code: int, words: str
) -> None:
    async with MCPBridge({"raw": raw_server}, plugins=[], timeout=60) as bridge:
        await bridge.list_tools()
        started = time.monotonic()
        failed, bystander = await asyncio.gather(call(bridge, "raw", tool), call(bridge, "raw", "echo", {"text": "hi"}))
        assert time.monotonic() - started < 20, "the server's own error is not a timeout"
        assert failed.status == "error"
        assert words in text(failed)
        assert f"code {code}" in text(failed)
        assert bystander.status == "success"
        assert text(bystander) == "hi"
        assert SessionProbe(bridge, "raw").connected
        assert text(await call(bridge, "raw", "echo", {"text": "still"})) == "still"


@pytest.mark.parametrize(
    ("tool", "words"),
    [("content_not_list", "content"), ("unknown_content", "content"), ("result_not_object", "")],
)
async def test_a_malformed_result_is_an_error_message_at_once(
    raw_server: dict[str, Any], tool: str, words: str
) -> None:
    async with MCPBridge({"raw": raw_server}, plugins=[], timeout=60) as bridge:
        await bridge.list_tools()
        started = time.monotonic()
        message = await call(bridge, "raw", tool)
        assert time.monotonic() - started < 20, "a malformed result must not wait for the timeout"
        assert message.status == "error"
        assert "server 'raw'" in text(message)
        assert repr(tool) in text(message)
        assert words in text(message)
        assert text(await call(bridge, "raw", "echo", {"text": "ok"})) == "ok"


async def test_an_http_server_that_restarts_is_reached_again() -> None:
    """A spec-following server answers 404 to the old session id: the bridge opens a new
    session and sends the request again, once; the caller sees a normal result."""
    served = serve_http(raw_jsonrpc.http_app())
    try:
        async with MCPBridge({"raw": {"url": served.url, "mode": "legacy"}}, plugins=[]) as bridge:
            assert text(await call(bridge, "raw", "echo", {"text": "before"})) == "before"
            await asyncio.to_thread(served.stop)
            served = await asyncio.to_thread(serve_http, raw_jsonrpc.http_app(), served.port)
            message = await call(bridge, "raw", "echo", {"text": "after"})
            assert message.status == "success"
            assert text(message) == "after"
            await asyncio.to_thread(served.stop)
            served = await asyncio.to_thread(serve_http, raw_jsonrpc.http_app(), served.port)
            assert "echo" in {t.name for t in await bridge.list_tools(refresh=True)}
    finally:
        await asyncio.to_thread(served.stop)


async def test_an_mcpserver_restart_over_http_is_reached_again() -> None:
    served = serve_http(basic.build())
    try:
        async with MCPBridge({"basic": {"url": served.url, "mode": "legacy"}}, plugins=[]) as bridge:
            assert text(await call(bridge, "basic", "echo", {"text": "before"})) == "before"
            await asyncio.to_thread(served.stop)
            served = await asyncio.to_thread(serve_http, basic.build(), served.port)
            assert text(await call(bridge, "basic", "echo", {"text": "after"})) == "after"
    finally:
        await asyncio.to_thread(served.stop)


async def test_a_stdio_server_that_died_while_idle_is_reopened_before_the_next_call() -> None:
    async with MCPBridge({"basic": stdio_config()}, plugins=[]) as bridge:
        first = int(text(await call(bridge, "basic", "pid")))
        os.kill(first, signal.SIGKILL)
        session = SessionProbe(bridge, "basic")
        await until(lambda: not session.connected, "the bridge noticing the server's death")
        message = await call(bridge, "basic", "pid")
        assert message.status == "success"
        assert int(text(message)) != first
        assert session.connected


async def test_a_call_in_flight_when_the_stdio_server_dies_fails_fast_and_says_why() -> None:
    async with MCPBridge({"basic": stdio_config()}, plugins=[], timeout=60) as bridge:
        await bridge.list_tools()
        started = time.monotonic()
        with pytest.raises(ServerConnectionError, match=r"server 'basic'.*exited with code 3"):
            await _die(bridge)
        assert time.monotonic() - started < 20  # not the 60 s timeout
        assert text(await call(bridge, "basic", "echo", {"text": "back"})) == "back"


async def test_every_call_in_flight_when_the_server_dies_is_told_why_not_that_the_bridge_closes() -> None:
    """The first call to see the broken transport drops the session; the calls sharing it
    must still say why it ended, never "the bridge is closing" (it is not)."""
    async with MCPBridge({"basic": stdio_config()}, plugins=[], timeout=60) as bridge:
        tools = {tool.binding.tool.name: tool for tool in await bridge.list_tools()}
        waiting = [asyncio.create_task(tools["slow"].ainvoke({"seconds": 30})) for _ in range(5)]
        await until(lambda: len(bridge.calls_in_flight("basic")) == 5, "five calls in flight")
        with pytest.raises(ServerConnectionError):
            await tools["die"].ainvoke({})
        failures = await asyncio.gather(*waiting, return_exceptions=True)
        assert all(isinstance(failure, ServerConnectionError) for failure in failures), failures
        for failure in failures:
            assert "exited with code 3" in str(failure)
            assert "closing" not in str(failure)
        assert text(await call(bridge, "basic", "echo", {"text": "back"})) == "back"


async def _die(bridge: MCPBridge) -> None:
    tools = {tool.binding.tool.name: tool for tool in await bridge.list_tools()}
    await tools["die"].ainvoke({})


@pytest.mark.parametrize("transport", ["stdio", "http", "inprocess"])
async def test_progress_reaches_observers_in_the_calls_own_context(transport: str, http_url: str) -> None:
    """Observers run where the call runs: the tool's runnable config is visible to them,
    whichever task read the notification off the transport."""
    seen: list[tuple[float, Any]] = []

    async def watch(request: Any, handler: Any) -> Any:
        def observer(event: str, data: dict[str, Any]) -> None:
            if event == "progress":
                seen.append((data["progress"], var_child_runnable_config.get()))

        return await handler(request.override(observers=(*request.observers, observer)))

    servers = {
        "stdio": RAW_STDIO,
        "http": {"url": http_url},
        "inprocess": {"server": basic.build()},
    }
    tool = "progress" if transport == "stdio" else "count"
    async with MCPBridge({"s": servers[transport]}, interceptors=[watch], plugins=[]) as bridge:
        tools = {t.binding.tool.name: t for t in await bridge.list_tools()}
        config = {"configurable": {"thread_id": "t-1"}}
        args = {} if transport == "stdio" else {"n": 2}
        await tools[tool].ainvoke({"type": "tool_call", "name": tool, "args": args, "id": "p1"}, config=config)
    assert len(seen) >= 2
    assert all(cfg is not None and cfg.get("configurable", {}).get("thread_id") == "t-1" for _, cfg in seen)
