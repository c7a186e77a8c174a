"""Server log messages (`notifications/message`): to the `mcpbridge.server.<name>` logger,
as `log` events to the call they came with, and safely (the text is the server's, untrusted);
client callbacks learn which tool call they serve. Real servers: ours (an MCPServer
in-process, over streamable HTTP and stdio) and npm server-everything."""

from __future__ import annotations

import asyncio
import logging
import warnings
from typing import Any

import mcpbridge_events
import pytest
from langchain_core.messages import AIMessage
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import ScriptedChatModel, make_agent, serve_http
from tests.helpers import stdio_config
from tests.helpers.thirdparty import EVERYTHING, need, node_stdio
from tests.helpers.waiting import until

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

LOGGER = "mcpbridge.server.docs"
HOSTILE = "%s %(x)s %d\nFORGED mcpbridge: CRITICAL all is lost"
MAX_LOG_CHARS = 4000
"""Where a server's log message is cut, as docs/server-info-and-logs.md promises."""
LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": 25,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
"""MCP levels as Python logging levels, as docs/server-info-and-logs.md gives them."""


def build() -> MCPServer:
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)  # MCP logging is deprecated, still served
    server = MCPServer("docs")

    @server.tool()
    async def chatty(ctx: Context) -> str:
        await ctx.debug("starting")
        await ctx.info("step one", logger_name="worker")
        await ctx.log("notice", {"rows": 3})
        await ctx.warning(HOSTILE)
        await ctx.log("emergency", "x" * (MAX_LOG_CHARS + 500))
        return "done"

    return server


class Listening:
    """A user's interceptor: hears the events of each call, with the call's identity."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, str, str | None, dict[str, Any]]] = []

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        def observer(event: str, data: Any) -> None:
            self.heard.append((request.server_name, request.name, request.tool_call_id, {"event": event, **data}))

        return await handler(request.override(observers=(*request.observers, observer)))


def check_logged(caplog: pytest.LogCaptureFixture, listening: Listening, *, tied: bool = True) -> None:
    """The logger has every message; the call hears them when they came with it (`tied`)."""
    records = [r for r in caplog.records if hasattr(r, "mcp_level")]  # stdio's stderr lines share the logger
    assert [(r.levelno, r.getMessage()[:20]) for r in records] == [
        (logging.DEBUG, "starting"),
        (logging.INFO, "[worker] step one"),
        (logging.INFO + 5, '{"rows": 3}'),
        (logging.WARNING, HOSTILE.replace("\n", "\\n")[:20]),
        (logging.CRITICAL, "x" * 20),
    ]
    assert records[3].getMessage() == HOSTILE.replace("\n", "\\n")  # no formatting, no forged line
    assert records[4].getMessage().endswith("… (500 more characters)")
    assert len(records[4].getMessage()) < MAX_LOG_CHARS + 100
    assert {(r.server_name, r.mcp_level) for r in records[:2]} == {("docs", "debug"), ("docs", "info")}  # type: ignore[attr-defined]

    logs = [(server, name, call_id, data) for server, name, call_id, data in listening.heard if data["event"] == "log"]
    if not tied:
        assert logs == []
        return
    assert [(s, n, c) for s, n, c, _ in logs] == [("docs", "chatty", "call-7")] * 5
    assert [data["level"] for *_, data in logs] == ["debug", "info", "notice", "warning", "emergency"]
    assert logs[1][3] == {"event": "log", "level": "info", "logger": "worker", "data": "step one"}
    assert logs[2][3]["data"] == {"rows": 3}


async def call_chatty(bridge: MCPBridge) -> None:
    message = await bridge.call_tool("docs", "chatty", tool_call_id="call-7")
    assert message.content[0]["text"] == "done"


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG, logger=LOGGER)
    return caplog


async def test_log_messages_in_process(debug_logs: pytest.LogCaptureFixture) -> None:
    listening = Listening()
    async with MCPBridge({"docs": build()}, plugins=[], interceptors=[listening]) as bridge:
        await call_chatty(bridge)
    check_logged(debug_logs, listening)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_log_messages_over_http(mode: str, debug_logs: pytest.LogCaptureFixture) -> None:
    listening = Listening()
    served = serve_http(build())
    try:
        servers = {"docs": {"url": served.url, "mode": mode}}
        async with MCPBridge(servers, plugins=[], interceptors=[listening]) as bridge:
            await call_chatty(bridge)
    finally:
        await asyncio.to_thread(served.stop)
    check_logged(debug_logs, listening)


async def test_log_messages_over_stdio_are_the_servers_alone(debug_logs: pytest.LogCaptureFixture) -> None:
    """stdio carries every message on one stream, and a log message names no request: it is
    the server's (its logger's), no call's."""
    listening = Listening()
    async with MCPBridge(
        {"docs": stdio_config("tests.core.test_logging")}, plugins=[], interceptors=[listening]
    ) as bridge:
        await call_chatty(bridge)
    check_logged(debug_logs, listening, tied=False)


async def test_a_quieter_logger_still_lets_info_reach_the_events(caplog: pytest.LogCaptureFixture) -> None:
    """At the default level the modern server is asked for `info` and above: the events
    hear them, Python logging keeps only what its level lets through."""
    caplog.set_level(logging.WARNING, logger=LOGGER)
    listening = Listening()
    async with MCPBridge({"docs": build()}, plugins=[], interceptors=[listening]) as bridge:
        await call_chatty(bridge)
    assert [r.levelno for r in caplog.records if hasattr(r, "mcp_level")] == [logging.WARNING, logging.CRITICAL]
    heard = [data["level"] for *_, data in listening.heard if data["event"] == "log"]
    assert heard == ["info", "notice", "warning", "emergency"]


async def test_calls_in_flight_together_each_hear_only_their_own_log_messages() -> None:
    """Calls running together on one session each hear the messages that came with their own
    request, not each other's, and a failing observer keeps nothing from the others."""
    listening = Listening()

    async def broken(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        def observer(event: str, data: Any) -> None:
            raise RuntimeError("observer bug")

        return await handler(request.override(observers=(observer, *request.observers)))

    async def both(bridge: MCPBridge) -> None:
        await asyncio.gather(
            bridge.call_tool("docs", "slow_chatty", {"name": "a"}, tool_call_id="a"),
            bridge.call_tool("docs", "slow_chatty", {"name": "b"}, tool_call_id="b"),
        )

    server = build()

    both_arrived, both_spoke = asyncio.Barrier(2), asyncio.Barrier(2)

    @server.tool()
    async def slow_chatty(name: str, ctx: Context) -> str:
        async with asyncio.timeout(10):
            await both_arrived.wait()
            await ctx.info(f"hello from {name}")
            await both_spoke.wait()
        return "done"

    async with MCPBridge({"docs": server}, plugins=[], interceptors=[listening, broken]) as bridge:
        await both(bridge)
    heard = [(call_id, data["data"]) for _, _, call_id, data in listening.heard if data["event"] == "log"]
    assert sorted(heard) == [("a", "hello from a"), ("b", "hello from b")]


async def test_log_messages_reach_the_events_stream() -> None:
    async with MCPBridge({"docs": build()}, plugins=[mcpbridge_events]) as bridge:
        tools = await bridge.list_tools()
        turn = AIMessage("", tool_calls=[{"name": "chatty", "args": {}, "id": "call-1", "type": "tool_call"}])
        agent = make_agent(ScriptedChatModel(turns=[turn]), tools)
        config = {"configurable": {"thread_id": "t1"}}
        chunks = [c async for c in agent.astream({"messages": [("user", "go")]}, config, stream_mode="custom")]
    updates = [c for c in chunks if c.get("event") == "update" and c.get("update") == "log"]
    assert [(u["tool_call_id"], u["data"]["level"]) for u in updates][:2] == [("call-1", "info"), ("call-1", "notice")]
    assert updates[0]["data"]["data"] == "step one"


async def test_an_elicitation_callback_learns_which_call_it_serves() -> None:
    from mcp.types import ElicitResult

    from tests.plugins.elicitation import elicit_servers
    from tests.servers.answering import Answering, pick_a_date

    seen: list[tuple[str, str, str | None]] = []
    bridges: list[MCPBridge] = []

    async def answer(context: Any, params: Any) -> ElicitResult:
        seen.extend((c.server_name, c.name, c.tool_call_id) for c in bridges[0].calls_in_flight("shop"))
        return await pick_a_date(context, params)

    servers = {"shop": {"server": elicit_servers.build(), "mode": "legacy"}}
    async with MCPBridge(servers, plugins=[Answering(answer)]) as bridge:
        bridges.append(bridge)
        booked = await bridge.call_tool("shop", "book", {"room": "green"}, tool_call_id="call-9")
        assert bridge.calls_in_flight("shop") == ()
    assert booked.content[0]["text"] == "booked green on 2030-01-02"
    assert seen == [("shop", "book", "call-9")]


async def test_server_everything_simulated_logging(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="mcpbridge.server.ev")
    async with MCPBridge({"ev": node_stdio(need(EVERYTHING), "stdio")}, plugins=[]) as bridge:
        started = await bridge.call_tool("ev", "toggle-simulated-logging")
        assert started.status == "success"
        await until(
            lambda: any(hasattr(r, "mcp_level") for r in caplog.records), "a log message from server-everything"
        )
        await bridge.call_tool("ev", "toggle-simulated-logging")
    [record, *_] = [r for r in caplog.records if hasattr(r, "mcp_level")]
    assert record.getMessage().lower().startswith(record.mcp_level)  # type: ignore[attr-defined]
    assert record.levelno == LOG_LEVELS[record.mcp_level]  # type: ignore[attr-defined]
    assert record.server_name == "ev"  # type: ignore[attr-defined]


if __name__ == "__main__":
    build().run()
