"""A server's output schema cannot stall the event loop: the mcp SDK checks structured
content with jsonschema, whose `pattern` runs on Python's backtracking `re`, so a server
declaring `^(a+)+$` and answering "aaa…!" held every session of the process for seconds
(hours with a longer text). The bridge checks results itself, patterns on RE2, with the
SDK's verdicts and words. On every transport."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import mcp.types as types
import pytest
from mcp.server.lowlevel import Server

from mcpbridge import MCPBridge, MCPToolError
from mcpbridge.testing import serve_http
from tests.helpers import stdio_config
from tests.security.test_security_schemas import LoopWatch
from tests.servers import shaped_results
from tests.servers.shaped_results import EVIL, EVIL_TEXT

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

TRANSPORTS = ["inproc", "stdio", "http", "sse"]


@pytest.fixture(params=TRANSPORTS)
def server(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The shaped-results server's config, on each transport."""
    if request.param == "inproc":
        yield {"server": shaped_results.build()}
    elif request.param == "stdio":
        yield stdio_config("tests.servers.shaped_results")
    else:
        sse = request.param == "sse"
        app = shaped_results.build().sse_app() if sse else shaped_results.build().streamable_http_app()
        served = serve_http(app)
        yield {"url": served.base_url + ("/sse" if sse else "/mcp"), **({"transport": "sse"} if sse else {})}
        served.stop()


def call(name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args or {}, "id": f"call-{name}"}


async def test_a_backtracking_output_pattern_does_not_hold_the_loop(server: dict[str, Any]) -> None:
    async with MCPBridge({"shaped": server}, plugins=[]) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        assert tools["evil"].metadata is not None
        assert tools["evil"].metadata["output_schema"]["properties"]["value"]["pattern"] == EVIL
        async with LoopWatch() as watch:
            message = await tools["evil"].ainvoke(call("evil"))
        assert watch.worst < 0.5, f"the event loop was held {watch.worst:.2f} s by an output schema's pattern"
        assert message.status == "error"
        text = message.content[0]["text"]
        assert text.startswith("MCP server 'shaped' returned a malformed result for 'evil': ")
        assert f'Invalid structured content returned by tool evil: value: "{EVIL_TEXT}" does not match' in text
        with pytest.raises(MCPToolError, match="malformed result"):
            await tools["evil"].ainvoke({})


async def test_results_inside_their_output_schema_pass(server: dict[str, Any]) -> None:
    async with MCPBridge({"shaped": server}, plugins=[]) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        fits = await tools["fits"].ainvoke(call("fits", {"text": "aaaa"}))
        counted = await tools["counted"].ainvoke(call("counted", {"n": 3}))
        assert (fits.status, counted.status) == ("success", "success")
        assert {"type": "mcp_structured_content", "data": {"count": 3}} in counted.artifact
        refused = await tools["fits"].ainvoke(call("fits", {"text": "b"}))  # the server's own check refuses it
        assert refused.status == "error"


def referring_server(hits: list[str]) -> Server[Any]:
    """A low-level server whose tool's output schema refers outside itself, to a URL that
    counts every fetch (`hits`), and answers a structured content breaking its other part."""
    remote = f"http://127.0.0.1:{_counting_port(hits)}/schema.json"
    output = {
        "type": "object",
        "properties": {"far": {"$ref": remote}, "near": {"type": "integer"}},
        "required": ["near"],
    }

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        tool = types.Tool(name="far", input_schema={"type": "object"}, output_schema=output)
        return types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        near = params.arguments.get("near", 1) if params.arguments else 1
        return types.CallToolResult(content=[], structured_content={"far": "anything", "near": near})

    return Server("referring", on_list_tools=list_tools, on_call_tool=call_tool)


def _counting_port(hits: list[str]) -> int:
    """A plain HTTP server on loopback that records the path of every request it gets."""

    class Counting(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"type": "string"}')

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


async def test_an_output_schema_referring_outside_itself_fetches_nothing(caplog: pytest.LogCaptureFixture) -> None:
    hits: list[str] = []
    async with MCPBridge({"referring": {"server": referring_server(hits)}}, plugins=[]) as bridge:
        [tool] = await bridge.list_tools()
        fine = await tool.ainvoke(call("far", {"near": 2}))
        broken = await tool.ainvoke(call("far", {"near": "two"}))
    assert fine.status == "success"
    assert broken.status == "error"
    assert (
        'Invalid structured content returned by tool far: near: "two" is not of type "integer"'
        in (broken.content[0]["text"])
    )
    assert hits == [], "the bridge fetched a server's schema reference"
    warned = [record.getMessage() for record in caplog.records if "never fetched" in record.getMessage()]
    assert warned, "no warning named the reference that was left out"
    assert "the output schema of tool 'far'" in warned[0]
    assert "results are validated" in warned[0]
