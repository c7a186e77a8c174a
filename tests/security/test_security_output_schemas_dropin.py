"""The drop-in's own sessions cannot be stalled by a server's output schema either: tools
over a session the user opened (`load_mcp_tools(session)`, langchain-mcp-adapters' first
example) or over a new session per call (`connection=...`) call the server themselves, and
the mcp SDK checks their results with jsonschema on Python's backtracking `re`. They check
results as the bridge does (`mcpbridge.call_tool_checked`), failing as the SDK's check
fails (a `RuntimeError` in its words) but in microseconds."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import mcp.types as types
import pytest
from mcp.client import Client
from mcp.server.lowlevel import Server
from mcpbridge_adapters.sessions import create_session
from mcpbridge_adapters.tools import convert_mcp_tool_to_langchain_tool, load_mcp_tools

from mcpbridge import MCPBridge, call_tool_checked
from mcpbridge.testing import serve_http
from tests.helpers import stdio_config
from tests.security import costly_servers
from tests.security.test_security_schemas import LoopWatch
from tests.servers import shaped_results
from tests.servers.shaped_results import EVIL_TEXT

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


@pytest.fixture(params=["stdio", "http", "sse"])
def connection(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The shaped-results server as a langchain-mcp-adapters connection, on each transport."""
    if request.param == "stdio":
        yield {"transport": "stdio", **stdio_config("tests.servers.shaped_results")}
        return
    sse = request.param == "sse"
    app = shaped_results.build().sse_app() if sse else shaped_results.build().streamable_http_app()
    served = serve_http(app)
    yield {"transport": request.param, "url": served.base_url + ("/sse" if sse else "/mcp")}
    served.stop()


BROKEN = re.escape(f'Invalid structured content returned by tool evil: value: "{EVIL_TEXT}" does not match')


def call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args or {}, "id": f"call-{name}"}


async def test_tools_over_the_users_own_session_check_results_without_holding_the_loop(
    connection: dict[str, Any],
) -> None:
    async with create_session(connection) as session:  # type: ignore[arg-type]
        await session.initialize()
        tools = {tool.name: tool for tool in await load_mcp_tools(session)}
        async with LoopWatch() as watch:
            with pytest.raises(RuntimeError, match=BROKEN):
                await tools["evil"].ainvoke(call("evil"))
        fits = await tools["fits"].ainvoke(call("fits", {"text": "aaaa"}))
        counted = await tools["counted"].ainvoke(call("counted", {"n": 3}))
    assert watch.worst < 0.5, f"the event loop was held {watch.worst:.2f} s by an output schema's pattern"
    assert (fits.status, counted.status) == ("success", "success")
    assert counted.artifact["structured_content"] == {"count": 3}


async def test_tools_with_a_session_per_call_check_results_without_holding_the_loop() -> None:
    connection: dict[str, Any] = {"transport": "stdio", **stdio_config("tests.servers.shaped_results")}
    async with create_session(connection) as session:  # type: ignore[arg-type]
        await session.initialize()
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
    evil = convert_mcp_tool_to_langchain_tool(None, listed["evil"], connection=connection)  # type: ignore[arg-type]
    async with LoopWatch() as watch:
        with pytest.raises(RuntimeError, match=BROKEN):
            await evil.ainvoke(call("evil"))
    assert watch.worst < 0.5, f"the event loop was held {watch.worst:.2f} s by an output schema's pattern"


async def test_an_output_schema_over_the_bounds_names_the_way_out_of_each_path(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A result of a tool whose output schema costs more than the schema bounds goes back
    unchecked, with one warning. Through a bridge the way out is its setting; on a session the
    user opened (`call_tool_checked`, the drop-in's own sessions) there is no setting to raise,
    and the warning said to raise one."""
    tool = types.Tool(name="report", input_schema={"type": "object"}, output_schema=costly_servers.doubling(15))

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[], structured_content={"x": "a"})

    server = Server("costly-outputs", on_list_tools=list_tools, on_call_tool=call_tool)
    caplog.set_level(logging.WARNING, logger="mcpbridge")
    async with Client(server, mode="legacy") as client:
        result = await call_tool_checked(client.session, tool, {})
    assert result.structured_content == {"x": "a"}
    async with MCPBridge({"costly": {"transport": "inprocess", "server": server}}, plugins=[]) as bridge:
        (report,) = await bridge.list_tools()
        assert (await report.ainvoke(call("report"))).status == "success"
    own, bridged = [r.getMessage() for r in caplog.records if "not checked against its output schema" in r.getMessage()]
    assert "through an MCPBridge with `max_schema_refs` raised" in own, own
    assert "raise `max_schema" not in own, own
    assert "raise `max_schema_refs` if the server is trusted" in bridged, bridged
