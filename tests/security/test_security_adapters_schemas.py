"""The drop-in's tools give the model mcpbridge's schemas, not the server's: with the
server's own input schema, one tool's `"$ref": "#/$defs/missing"` (or a remote or `file:`
`$ref`) made `convert_to_openai_tool` raise, so `bind_tools` failed for every tool of every
server an agent was given, and one whose references double at each level held the loop
seconds in each `convert_to_openai_tool`. Nothing is fetched either way."""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool
from mcp.client import Client
from mcpbridge_adapters.client import MultiServerMCPClient
from mcpbridge_adapters.sessions import create_session
from mcpbridge_adapters.tools import convert_mcp_tool_to_langchain_tool, load_mcp_tools

from mcpbridge.testing import serving
from tests.helpers import stdio_config
from tests.security import costly_servers, hostile_servers
from tests.security.listeners import Listener, listening

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

LISTED = {"tree", "rows", "dangling", "echo"}
"""The bomb server's tools within the default schema bounds."""


@pytest.fixture
def recorder() -> Iterator[Listener]:
    with listening(answer=True) as listener:
        yield listener


async def test_one_servers_refs_cannot_break_every_model_call(recorder: Listener) -> None:
    server = hostile_servers.build(recorder.port, recorder.port)
    async with MultiServerMCPClient({"hostile": {"transport": "in_process", "server": server}}, plugins=[]) as client:
        tools = await client.get_tools()
        assert {"remote_ref", "local_ref", "file_ref", "echo"} <= {tool.name for tool in tools}
        described = {tool.name: convert_to_openai_tool(tool)["function"] for tool in tools}  # what bind_tools does
        assert "n" in described["local_ref"]["parameters"]["properties"]
        echo = next(tool for tool in tools if tool.name == "echo")
        assert (await echo.ainvoke({"text": "hi"}))[0]["text"]  # the session still answers
    assert recorder.connections == []


@contextlib.asynccontextmanager
async def own_session(transport: str) -> AsyncIterator[Any]:
    """An initialized mcp session of the user's own to the schema-bomb server."""
    if transport == "inprocess":
        async with Client(costly_servers.bombs(), mode="legacy") as client:
            yield client.session
        return
    if transport == "stdio":
        connection: dict[str, Any] = {"transport": "stdio", **stdio_config("tests.security.costly_servers")}
        async with create_session(connection) as session:  # type: ignore[arg-type]
            await session.initialize()
            yield session
        return
    with serving(costly_servers.bombs().streamable_http_app()) as url:
        async with create_session({"transport": "http", "url": url}) as session:
            await session.initialize()
            yield session


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_tools_over_the_users_own_session_give_the_model_bounded_schemas(
    transport: str, caplog: pytest.LogCaptureFixture
) -> None:
    """`load_mcp_tools(session)` on a session the user opened: with the server's own schemas,
    `convert_to_openai_tool` (every `bind_tools`) took seconds for a schema whose references
    double at each level and raised on one it cannot inline. Now a tool over the bounds is
    left out with one warning, as the bridge leaves it out, and the others convert at once."""
    caplog.set_level(logging.WARNING, logger="mcpbridge")
    async with own_session(transport) as session:
        tools = {tool.name: tool for tool in await load_mcp_tools(session)}
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == LISTED
        with pytest.raises(ValueError, match=r"'doubling' cannot be given to a model: its input schema costs more"):
            convert_mcp_tool_to_langchain_tool(session, listed["doubling"])
        answer = await tools["dangling"].ainvoke({"n": 3})
    assert json.loads(answer[0]["text"])["keys"] == ["n"]
    for tool in tools.values():
        started = time.perf_counter()
        convert_to_openai_tool(tool)
        assert time.perf_counter() - started < 0.05, tool.name
    assert "n" in convert_to_openai_tool(tools["dangling"])["function"]["parameters"]["properties"]
    warned = [r.getMessage() for r in caplog.records if "leaving out tool" in r.getMessage()]
    for name in ("doubling", "chain", "huge"):
        assert any(f"tool {name!r}" in line for line in warned), (name, warned)
    for line in warned:  # this session has no setting to raise: the warning names the real way out
        assert "raise `max_schema" not in line, line
        assert "through an MCPBridge with `max_schema_" in line, line
