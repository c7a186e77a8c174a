"""What makes the drop-in a drop-in (issue 26): any session works, every argument of
`load_mcp_tools` applies on a client's shared sessions too, and servers that push requests
work without any setting, as on the adapters (the legacy protocol by default)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.tools import ToolException
from mcp import Client
from mcp.types import ElicitRequestParams, ElicitResult, Tool
from mcpbridge_adapters.callbacks import CallbackContext, Callbacks
from mcpbridge_adapters.tools import convert_mcp_tool_to_langchain_tool, load_mcp_tools

from mcpbridge import InvalidToolArguments
from mcpbridge.testing import make_server, serving
from tests.adapters import servers
from tests.servers.method_log import MethodLog


@pytest.fixture(scope="module")
def profile_url() -> Iterator[str]:
    with serving(servers.profile()) as url:
        yield url


async def test_load_mcp_tools_arguments_apply_on_a_shared_session(make_client: Any, behaviours_url: str) -> None:
    calls: list[str] = []
    heard: list[str | None] = []

    async def count(request: Any, handler: Any) -> Any:
        calls.append(request.name)
        return await handler(request)

    async def on_progress(progress: float, total: float | None, message: str | None, context: Any) -> None:
        heard.append(context.tool_name)

    client = make_client({"b": {"url": behaviours_url, "transport": "http"}})
    async with client.session("b") as session:
        tools = await load_mcp_tools(
            session,
            handle_tool_errors=False,
            tool_interceptors=[count],
            tool_name_prefix=True,
            callbacks=Callbacks(on_progress=on_progress),
        )
    by_name = {tool.name: tool for tool in tools}
    assert "b_lookup" in by_name
    with pytest.raises(ToolException, match="project not found"):
        await by_name["b_lookup"].ainvoke({"args": {"param1": "x"}, "id": "1", "type": "tool_call"})
    await by_name["b_slow_count"].ainvoke({})
    assert calls == ["lookup", "slow_count"]
    assert heard == ["slow_count", "slow_count"]
    async with client.session("b") as session:
        named = await load_mcp_tools(session, tool_name_prefix=True, server_name="mine")
    assert "mine_lookup" in {tool.name for tool in named}
    plain = {tool.name: tool for tool in await client.get_tools()}  # the client's own settings are untouched
    message = await plain["lookup"].ainvoke({"args": {"param1": "x"}, "id": "1", "type": "tool_call"})
    assert message.status == "error"
    assert calls == ["lookup", "slow_count"]


async def test_an_elicitation_callback_of_its_own_is_refused_on_a_shared_session(
    make_client: Any, behaviours_url: str
) -> None:
    async def on_elicitation(mcp_context: Any, params: Any, context: Any) -> Any:
        return ElicitResult(action="cancel")

    client = make_client({"b": {"url": behaviours_url, "transport": "http"}})
    async with client.session("b") as session:
        with pytest.raises(ValueError, match=r"callbacks.on_elicitation.*MultiServerMCPClient\(callbacks="):
            await load_mcp_tools(session, callbacks=Callbacks(on_elicitation=on_elicitation))


async def test_tools_over_a_session_of_ones_own(math_url: str) -> None:
    """Through mcp's `Client` session, modern protocol: the calls go through that session."""
    async with Client(math_url) as own:
        tools = {tool.name: tool for tool in await load_mcp_tools(own.session)}
        message = await tools["add"].ainvoke({"args": {"a": 2, "b": 3}, "id": "7", "type": "tool_call"})
        assert (message.tool_call_id, message.content[0]["text"], message.content[0]["id"][:3]) == ("7", "5", "lc_")
        assert message.artifact == {"structured_content": {"result": 5}}
        listed = (await own.session.list_tools()).tools
        multiply = convert_mcp_tool_to_langchain_tool(own.session, next(t for t in listed if t.name == "multiply"))
        assert [block["text"] for block in await multiply.ainvoke({"a": 4, "b": 5})] == ["20"]


async def test_convert_with_a_connection_opens_a_session_per_call(math_url: str) -> None:
    tool = Tool(name="add", input_schema={"type": "object", "properties": {"a": {}, "b": {}}})
    lc_tool = convert_mcp_tool_to_langchain_tool(None, tool, connection={"transport": "http", "url": math_url})
    assert [block["text"] for block in await lc_tool.ainvoke({"a": 1, "b": 1})] == ["2"]


async def test_a_server_that_pushes_requests_works_without_settings(make_client: Any, profile_url: str) -> None:
    """`ctx.elicit` on an mcp 2.x server needs the legacy protocol: it is the default."""
    asked: list[tuple[str, CallbackContext]] = []

    async def on_elicitation(mcp_context: Any, params: ElicitRequestParams, context: CallbackContext) -> ElicitResult:
        asked.append((params.message, context))
        return ElicitResult(action="accept", content={"email": "ann@example.com"})

    client = make_client(
        {"profile": {"url": profile_url, "transport": "http"}}, callbacks=Callbacks(on_elicitation=on_elicitation)
    )
    [tool] = await client.get_tools()
    message = await tool.ainvoke({"args": {"name": "Ann"}, "id": "1", "type": "tool_call"})
    assert message.content[0]["text"] == "Ann: ann@example.com"
    assert asked == [("Details for Ann?", CallbackContext(server_name="profile", tool_name="create_profile"))]
    assert (await client.get_server_info())["profile"].protocolVersion == "2025-11-25"
    modern = make_client({"profile": {"url": profile_url, "transport": "http", "mode": "auto"}})
    assert (await modern.get_server_info())["profile"].protocolVersion != "2025-11-25"


async def test_sessions_introduce_themselves_as_the_adapters_did(make_client: Any) -> None:
    """langchain-mcp-adapters ran on mcp 1.x, whose sessions said `mcp 0.1.0`: a server that
    tells clients apart by `clientInfo` sees the same client after the move."""

    def echo(text: str) -> str:
        return text

    log = MethodLog(make_server(echo, name="echo").streamable_http_app())
    with serving(log) as url:
        client = make_client({"s": {"transport": "streamable_http", "url": url}})
        assert [tool.name for tool in await client.get_tools()] == ["echo"]
    [initialize] = [message for message in log.messages if message.get("method") == "initialize"]
    assert initialize["params"]["clientInfo"] == {"name": "mcp", "version": "0.1.0"}


async def test_arguments_refused_on_a_shared_session_as_by_the_bridge(make_client: Any, math_url: str) -> None:
    """Arguments that break the input schema never reach the server: an error ToolMessage
    for a tool call, `InvalidToolArguments` raised for plain arguments, as by mcpbridge's tools."""
    client = make_client({"math": {"url": math_url, "transport": "http"}})
    add = next(tool for tool in await client.get_tools() if tool.name == "add")
    message = await add.ainvoke({"args": {"a": "x", "b": 1}, "id": "1", "type": "tool_call"})
    assert message.status == "error"
    assert message.text.startswith("Invalid arguments for tool 'add': a: ")
    with pytest.raises(InvalidToolArguments, match="Invalid arguments for tool 'add'"):
        await add.ainvoke({"a": "x", "b": 1})
