"""langchain-mcp-adapters' tools behaviours (tests/test_tools.py there), against the drop-in
and real servers."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import ToolException
from mcpbridge_adapters.client import MultiServerMCPClient
from mcpbridge_adapters.tools import MCPToolArtifact, load_mcp_tools

from tests.adapters import servers
from tests.helpers.adapters import stdio_connection

CALL = {"args": {"param1": "x"}, "id": "1", "type": "tool_call"}


def _texts(content: Any) -> list[str]:
    return [block["text"] for block in content if block["type"] == "text"]


async def _tools(make_client: Any, url: str, **options: Any) -> dict[str, Any]:
    client = make_client({"srv": {"url": url, "transport": "http"}}, **options)
    return {tool.name: tool for tool in await client.get_tools()}


@pytest.mark.parametrize("transport", ["streamable_http", "streamable-http", "http"])
async def test_load_tools_with_http_variations(make_client: Any, math_url: str, transport: str) -> None:
    client = make_client({"math": {"url": math_url, "transport": transport}})
    tools = {tool.name: tool for tool in await client.get_tools()}
    assert set(tools) == {"add", "multiply"}
    assert tools["add"].description == "Add two numbers"
    assert _texts(await tools["add"].ainvoke({"a": 2, "b": 3})) == ["5"]


async def test_tool_call_returns_a_tool_message(make_client: Any, math_url: str) -> None:
    tools = await _tools(make_client, math_url)
    message = await tools["add"].ainvoke({"args": {"a": 1, "b": 2}, "id": "1", "type": "tool_call"})
    assert isinstance(message, ToolMessage)
    assert (message.name, message.tool_call_id, message.status) == ("add", "1", "success")
    assert _texts(message.content) == ["3"]
    assert message.artifact == {"structured_content": {"result": 3}}  # MCPServer wraps an int


async def test_no_structured_content_no_artifact(make_client: Any, behaviours_url: str) -> None:
    tools = await _tools(make_client, behaviours_url)
    message = await tools["plain"].ainvoke({"args": {}, "id": "1", "type": "tool_call"})
    assert message.artifact is None


async def test_structured_content_is_the_artifact(make_client: Any, behaviours_url: str) -> None:
    tools = await _tools(make_client, behaviours_url)
    message = await tools["forecast"].ainvoke({"args": {"city": "Oslo"}, "id": "1", "type": "tool_call"})
    assert message.status == "success"
    assert message.artifact == MCPToolArtifact(structured_content={"city": "Oslo", "temperature": 21})


async def test_metadata_variants(make_client: Any, behaviours_url: str) -> None:
    tools = await _tools(make_client, behaviours_url)
    assert tools["plain"].metadata is None
    assert tools["annotated"].metadata == {
        "title": "Title",
        "readOnlyHint": True,
        "idempotentHint": False,
        "destructiveHint": None,
        "openWorldHint": None,
    }
    assert tools["with_meta"].metadata == {"_meta": {"source": "unit-test", "version": 1}}
    assert tools["both"].metadata == {
        "title": "Both",
        "readOnlyHint": None,
        "idempotentHint": None,
        "destructiveHint": None,
        "openWorldHint": None,
        "_meta": {"flag": True},
    }


async def test_tool_error_returns_failed_tool_message(make_client: Any, behaviours_url: str) -> None:
    tools = await _tools(make_client, behaviours_url)
    message = await tools["lookup"].ainvoke(CALL)
    assert isinstance(message, ToolMessage)
    assert (message.status, message.tool_call_id) == ("error", "1")
    assert _texts(message.content) == ["project not found"]


async def test_tool_error_raises_with_opt_out_flag(make_client: Any, behaviours_url: str) -> None:
    tools = await _tools(make_client, behaviours_url, handle_tool_errors=False)
    with pytest.raises(ToolException, match="project not found"):
        await tools["lookup"].ainvoke(CALL)


async def test_empty_error_content_is_never_an_empty_message(make_client: Any, behaviours_url: str) -> None:
    tools = await _tools(make_client, behaviours_url)
    message = await tools["empty_error"].ainvoke({"args": {}, "id": "1", "type": "tool_call"})
    assert message.status == "error"
    assert _texts(message.content)
    assert all(_texts(message.content))
    raising = await _tools(make_client, behaviours_url, handle_tool_errors=False)
    with pytest.raises(ToolException):
        await raising["empty_error"].ainvoke({"args": {}, "id": "2", "type": "tool_call"})


async def test_error_keeps_non_text_content(make_client: Any, behaviours_url: str) -> None:
    tools = await _tools(make_client, behaviours_url)
    message = await tools["picture_error"].ainvoke({"args": {}, "id": "1", "type": "tool_call"})
    assert message.status == "error"
    assert [block["type"] for block in message.content] == ["text", "image"]


async def test_image_content(make_client: Any, behaviours_url: str) -> None:
    tools = await _tools(make_client, behaviours_url)
    [block] = await tools["picture"].ainvoke({})
    assert (block["type"], block["base64"], block["mime_type"]) == ("image", servers.PNG, "image/png")


async def test_audio_content_is_refused_as_by_the_adapters(make_client: Any, behaviours_url: str) -> None:
    """The adapters raise NotImplementedError for audio, on a direct call and in an agent alike."""
    tools = await _tools(make_client, behaviours_url)
    with pytest.raises(NotImplementedError, match="audio/wav"):
        await tools["sound"].ainvoke({})
    with pytest.raises(NotImplementedError, match="audio/wav"):
        await tools["sound"].ainvoke({"args": {}, "id": "1", "type": "tool_call"})


async def test_transport_failure_raises(make_client: Any) -> None:
    client = make_client({"gone": {"url": "http://127.0.0.1:9/mcp", "transport": "http", "timeout": 2}})
    with pytest.raises(Exception, match="gone"):
        await client.get_tools()


async def test_stdio_server(make_client: Any) -> None:
    client = make_client({"math": stdio_connection()})
    tools = {tool.name: tool for tool in await client.get_tools()}
    assert _texts(await tools["multiply"].ainvoke({"a": 6, "b": 7})) == ["42"]
    # The session persists: a second call reuses the same server process.
    assert _texts(await tools["add"].ainvoke({"a": 1, "b": 1})) == ["2"]


async def test_get_tools_of_one_server_and_unknown_server(make_client: Any, math_url: str) -> None:
    client = make_client(
        {
            "math": {"url": math_url, "transport": "http"},
            "weather": {"transport": "in_process", "server": servers.search("weather")},
        }
    )
    assert {t.name for t in await client.get_tools(server_name="weather")} == {"search"}
    assert {t.name for t in await client.get_tools()} == {"add", "multiply", "search"}
    with pytest.raises(ValueError, match="Couldn't find a server with name 'nope'"):
        await client.get_tools(server_name="nope")


async def test_name_conflict_and_prefix(make_client: Any, caplog: pytest.LogCaptureFixture) -> None:
    """As the adapters: without the prefix both tools are returned (an agent keeps the
    last), here with a warning."""
    connections = {
        "weather": {"transport": "in_process", "server": servers.search("weather")},
        "flights": {"transport": "in_process", "server": servers.search("flights")},
    }
    both = await make_client(connections).get_tools()
    assert [tool.name for tool in both] == ["search", "search"]
    assert "2 servers offer a tool named 'search'" in caplog.text
    assert _texts(await both[1].ainvoke({"query": "OSL"})) == ["flights: OSL"]
    tools = {t.name: t for t in await make_client(connections, tool_name_prefix=True).get_tools()}
    assert set(tools) == {"weather_search", "flights_search"}
    assert _texts(await tools["flights_search"].ainvoke({"query": "OSL"})) == ["flights: OSL"]


async def test_parallel_calls_across_servers(make_client: Any, math_url: str) -> None:
    import asyncio

    client = make_client(
        {
            "math": {"url": math_url, "transport": "http"},
            "weather": {"transport": "in_process", "server": servers.search("weather")},
        }
    )
    tools = {t.name: t for t in await client.get_tools()}
    results = await asyncio.gather(
        *(tools["add"].ainvoke({"a": i, "b": i}) for i in range(5)),
        tools["search"].ainvoke({"query": "rain"}),
    )
    assert [_texts(r) for r in results] == [[str(2 * i)] for i in range(5)] + [["weather: rain"]]


async def test_load_mcp_tools_from_a_session_or_a_connection(make_client: Any, math_url: str) -> None:
    client = make_client({"math": {"url": math_url, "transport": "http"}})
    async with client.session("math") as session:
        assert (await session.list_tools()).tools
        tools = await load_mcp_tools(session)
    assert {t.name for t in tools} == {"add", "multiply"}
    tools = await load_mcp_tools(None, connection={"url": math_url, "transport": "http"}, server_name="math")
    assert {t.name for t in tools} == {"add", "multiply"}
    with pytest.raises(ValueError, match="session or a connection"):
        await load_mcp_tools(None)


@pytest.mark.parametrize(
    ("connection", "problem"),
    [
        ({"url": "http://x/mcp"}, "missing 'transport'"),
        ({"transport": "websocket", "url": "ws://x"}, "WebSocket"),
        ({"transport": "stdio", "command": "x"}, "'args' parameter is required"),
        ({"transport": "http"}, "'url' parameter is required"),
        ({"transport": "carrier-pigeon", "url": "x"}, "Unsupported transport"),
        ({"transport": "stdio", "command": "x", "args": [], "session_kwargs": {"a": 1}}, "session_kwargs"),
    ],
)
def test_connection_problems_are_value_errors(connection: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        MultiServerMCPClient({"srv": connection}, plugins=[])  # type: ignore[dict-item]
