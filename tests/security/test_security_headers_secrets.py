"""A header the headers plugin sends with a fixed value (`env:NAME`, a literal) is a secret the
bridge knows, as a server's static `headers` are: a server quoting it back in its error (the
token it refused) showed it to the model, and to every span, event and log that quotes the
error. Over streamable HTTP, the only transport that carries headers."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import mcp.types as types
import mcpbridge_headers
import pytest
from mcp import MCPError
from mcp.server.lowlevel import Server

from mcpbridge import MCPBridge, ToolCallError
from mcpbridge.testing import serving

TOKEN = "hdr-3e8a6c1f9b4d7025"


def quoting() -> Server[Any]:
    """Every call is a JSON-RPC error quoting the Authorization header it received."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="check", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        raise MCPError(-32000, f"credential {ctx.request.headers.get('authorization')!r} was revoked")

    return Server("quoting", on_list_tools=list_tools, on_call_tool=call_tool)


@pytest.fixture
def url() -> Iterator[str]:
    with serving(quoting().streamable_http_app()) as served:
        yield served


async def test_a_fixed_header_value_echoed_by_the_server_stays_hidden(
    url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("QUOTING_TOKEN", f"Bearer {TOKEN}")
    caplog.set_level(logging.DEBUG)
    settings = {"headers": {"servers": {"q": {"authorization": "env:QUOTING_TOKEN"}}}}
    async with MCPBridge({"q": {"url": url}}, plugins=[mcpbridge_headers], plugin_settings=settings) as bridge:
        [tool] = await bridge.list_tools()
        message = await tool.ainvoke({"type": "tool_call", "name": "check", "args": {}, "id": "c1"})
        with pytest.raises(ToolCallError) as raised:
            await tool.ainvoke({})
    assert "was revoked" in str(message.content)  # the server did see the header and quote it
    for text in (str(message.content), str(raised.value), repr(raised.value), caplog.text):
        assert TOKEN not in text
