"""langchain-mcp-adapters' prompts, resources, server info and elicitation behaviours
(tests/test_client.py, test_prompts.py, test_resources.py, test_server_info.py,
test_elicitation.py there), against the drop-in."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any

import pytest
from langchain_core.documents.base import Blob
from langchain_core.messages import AIMessage
from mcp.types import ElicitRequestParams, ElicitResult
from mcpbridge_adapters.answering import MAX_REQUESTS
from mcpbridge_adapters.callbacks import CallbackContext, Callbacks
from mcpbridge_adapters.prompts import load_mcp_prompt
from mcpbridge_adapters.resources import load_mcp_resources
from mcpbridge_adapters.server_info import load_mcp_server_info
from mcpbridge_adapters.tools import load_mcp_tools

from mcpbridge import ServerRequestError
from mcpbridge.testing import serving
from tests.adapters import servers
from tests.helpers import ROOT
from tests.helpers.adapters import stdio_connection
from tests.servers import pushing


def _two_servers(make_client: Any) -> Any:
    return make_client(
        {"math": stdio_connection(), "weather": {"transport": "in_process", "server": servers.search("weather")}}
    )


async def test_get_prompt(make_client: Any) -> None:
    client = _two_servers(make_client)
    messages = await client.get_prompt("math", "configure_assistant", arguments={"skills": "math, addition"})
    assert len(messages) == 1
    assert isinstance(messages[0], AIMessage)
    assert "You are a helpful assistant" in messages[0].content
    assert "math, addition" in messages[0].content
    async with client.session("math") as session:
        assert await load_mcp_prompt(session, "configure_assistant", arguments={"skills": "x"}) == [
            AIMessage("You are a helpful assistant. You have these skills: x.")
        ]


async def test_get_resources_from_all_and_one_server(make_client: Any) -> None:
    client = _two_servers(make_client)
    resources = await client.get_resources()
    assert all(isinstance(r, Blob) for r in resources)
    by_uri = {str(r.metadata["uri"]): r.data for r in resources}
    assert by_uri == {
        "math://formulas": "E = mc^2",
        "math://table": b"binary data",
        "weather://forecast": "Sunny with a chance of clouds",
    }
    only = await client.get_resources("math")
    assert {str(blob.metadata["uri"]) for blob in only} == {"math://formulas", "math://table"}
    [chosen] = await client.get_resources("weather", uris="weather://forecast")
    assert chosen.data == "Sunny with a chance of clouds"
    async with client.session("weather") as session:
        [blob] = await load_mcp_resources(session, uris=["weather://forecast"])
    assert blob.mimetype == "text/plain"
    with pytest.raises(ValueError, match="Couldn't find a server"):
        await client.get_resources("nope")


async def test_server_info(make_client: Any, math_url: str) -> None:
    client = make_client(
        {
            "math": {"url": math_url, "transport": "http"},
            "weather": {"transport": "in_process", "server": servers.search("weather")},
        }
    )
    info = await client.get_server_info()
    assert set(info) == {"math", "weather"}
    assert (info["math"].serverInfo.name, info["math"].instructions) == ("math", "Numbers only.")
    assert info["math"].name == "math"  # mcpbridge's ServerInfo names too
    assert info["math"].capabilities.tools is not None
    assert info["weather"].instructions is None
    assert set(await client.get_server_info(server_name="weather")) == {"weather"}
    async with client.session("math") as session:  # shared and initialized: refused, as by the adapters
        with pytest.raises(ValueError, match="already been initialized"):
            await load_mcp_server_info(session)
    async with client.session("math", auto_initialize=False) as session:
        assert (await load_mcp_server_info(session)).serverInfo.name == "math"
        assert [tool.name for tool in (await session.list_tools()).tools] == ["add", "multiply"]
    assert (await load_mcp_server_info(None, connection=stdio_connection())).protocolVersion  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Either a session or a connection"):
        await load_mcp_server_info(None)
    with pytest.raises(ValueError, match="Couldn't find a server"):
        await client.get_server_info(server_name="nope")


@pytest.mark.parametrize("mode", ["legacy", "modern"])
@pytest.mark.parametrize(
    ("action", "expected"), [("accept", "booked green on 2030-01-02"), ("decline", None), ("cancel", None)]
)
async def test_elicitation_callback(make_client: Any, mode: str, action: str, expected: str | None) -> None:
    """Legacy servers ask mid-call, modern ones in rounds of the call: the callback answers both."""
    asked: list[tuple[str, CallbackContext]] = []

    async def on_elicitation(mcp_context: Any, params: ElicitRequestParams, context: CallbackContext) -> ElicitResult:
        asked.append((params.message, context))
        content = {"date": "2030-01-02"} if action == "accept" else None
        return ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    client = make_client(
        {"booking": {"transport": "in_process", "server": servers.booking(), "mode": mode}},
        callbacks=Callbacks(on_elicitation=on_elicitation),
    )
    [book] = await client.get_tools()
    message = await book.ainvoke({"args": {"room": "green"}, "id": "1", "type": "tool_call"})
    assert asked == [("Which date should I book?", CallbackContext(server_name="booking", tool_name="book"))]
    if expected is not None:
        assert (message.status, message.content[0]["text"]) == ("success", expected)
    else:
        assert message.status == "error"


@pytest.mark.parametrize("mode", ["legacy", "modern"])
async def test_elicitation_callback_next_to_the_installed_elicitation_plugin(
    make_client: Any, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With mcpbridge-elicitation installed and autoloaded, `on_elicitation` still answers:
    the client's own plugin takes the capability (the installed plugin's callback is left
    out, its interrupt never sees the question), over HTTP as over any transport."""
    monkeypatch.setenv("MCPBRIDGE_PLUGINS", "elicitation")
    asked: list[str] = []

    async def on_elicitation(mcp_context: Any, params: ElicitRequestParams, context: CallbackContext) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"date": "2030-01-02"})

    with serving(servers.booking()) as url:
        client = make_client(
            {"booking": {"transport": "http", "url": url, "mode": mode}},
            callbacks=Callbacks(on_elicitation=on_elicitation),
            plugins=None,
        )
        assert client.bridge.chain[:3] == ("elicitation", "interceptors", "adapters")
        [book] = await client.get_tools()
        message = await book.ainvoke({"args": {"room": "green"}, "id": "1", "type": "tool_call"})
        await client.aclose()
    assert (message.status, message.content[0]["text"]) == ("success", "booked green on 2030-01-02")
    assert asked == ["Which date should I book?"]


@pytest.mark.parametrize("transport", ["in_process", "stdio", "http", "sse"])
async def test_a_legacy_server_has_at_most_ten_questions_answered_per_call(make_client: Any, transport: str) -> None:
    """A legacy server's questions name no call, and nothing counted them: it could keep
    `on_elicitation` (a person, a model) asking without end during one call, or when no call
    of it ran. Each one now counts against `MAX_REQUESTS` of a tool call in flight on its
    server (two calls at once have theirs each), or else of an open `client.session()` block,
    whose direct requests the adapters' users expect answered."""
    asked: list[str] = []

    async def on_elicitation(mcp_context: Any, params: ElicitRequestParams, context: CallbackContext) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"sure": True})

    with contextlib.ExitStack() as stack:
        connection: dict[str, Any] = {"transport": transport, "mode": "legacy"}
        if transport == "in_process":
            connection["server"] = pushing.build()
        elif transport == "stdio":
            connection.update(command=sys.executable, args=["-m", "tests.servers.pushing"], cwd=str(ROOT))
        elif transport == "http":
            connection["url"] = stack.enter_context(serving(pushing.build().streamable_http_app()))
        else:
            connection["url"] = stack.enter_context(serving(pushing.build().sse_app())).removesuffix("/mcp") + "/sse"
        client = make_client({"s": connection}, callbacks=Callbacks(on_elicitation=on_elicitation))
        ask_times = {tool.name: tool for tool in await client.get_tools()}["ask_times"]
        over = await ask_times.ainvoke({"times": MAX_REQUESTS + 2})
        assert len(asked) == MAX_REQUESTS
        both = await asyncio.gather(*(ask_times.ainvoke({"times": MAX_REQUESTS}) for _ in range(2)))
        async with client.session("s") as session:
            in_block = await session.call_tool("ask_times", {"times": MAX_REQUESTS + 1})
        outside = await session.call_tool("ask_times", {"times": 1})  # after the block: no call of the client's
        await client.aclose()
    refused = (
        f"mcpbridge: server 's' asked more than {MAX_REQUESTS} questions in one tool call or `client.session()` "
        "block, or outside them; refused (call the tool through the client's tools, each call has its own)"
    )
    assert over[0]["text"] == f"answered {MAX_REQUESTS}; then refused: {refused}"
    assert [message[0]["text"] for message in both] == [f"answered {MAX_REQUESTS}"] * 2
    assert in_block.content[0].text == f"answered {MAX_REQUESTS}; then refused: {refused}"
    assert outside.content[0].text == f"answered 0; then refused: {refused}"
    assert len(asked) == 4 * MAX_REQUESTS


async def test_a_session_opened_elsewhere(math_url: str) -> None:
    """A session the user opened (here mcp's own `Client`, either protocol) serves prompts,
    resources, server info and tools, which call through it."""
    from mcp import Client

    async with Client(math_url, mode="legacy") as elsewhere:
        session = elsewhere.session
        assert [blob.data for blob in await load_mcp_resources(session, uris="math://formulas")] == ["E = mc^2"]
        [message] = await load_mcp_prompt(session, "configure_assistant", arguments={"skills": "x"})
        assert isinstance(message, AIMessage)
        tools = {tool.name: tool for tool in await load_mcp_tools(session, tool_name_prefix=True, server_name="m")}
        assert [block["text"] for block in await tools["m_add"].ainvoke({"a": 1, "b": 2})] == ["3"]


async def test_blob_resource_and_a_failing_read(make_client: Any) -> None:
    client = make_client({"math": {"transport": "in_process", "server": servers.math()}})
    [blob] = await client.get_resources("math", uris="math://table")
    assert (blob.as_bytes(), blob.mimetype) == (b"binary data", "application/octet-stream")
    with pytest.raises(RuntimeError, match="Error fetching resource math://nope") as raised:
        await client.get_resources("math", uris=["math://formulas", "math://nope"])
    assert isinstance(raised.value.__cause__, ServerRequestError)


async def test_prompt_with_image_content(make_client: Any) -> None:
    """As the adapters: non-text prompt content is a ValueError."""
    client = make_client({"math": {"transport": "in_process", "server": servers.math()}})
    with pytest.raises(ValueError, match="Unsupported prompt message content type: image"):
        await client.get_prompt("math", "show_chart")
