"""The bridge end to end over in-process, stdio and streamable HTTP servers."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import ConfigError, InvalidToolArguments, MCPBridge, MCPToolError, ServerConnectionError
from mcpbridge.testing import serve_http
from tests.helpers import stdio_config
from tests.servers import basic, sampling_server


def call(tool: Any, args: dict[str, Any], id: str = "call-1") -> dict[str, Any]:
    return {"type": "tool_call", "name": tool.name, "args": args, "id": id}


async def tools_of(bridge: MCPBridge) -> dict[str, Any]:
    return {tool.name: tool for tool in await bridge.list_tools()}


async def test_lists_and_calls_on_every_transport(any_server: dict[str, Any]) -> None:
    async with MCPBridge({"basic": any_server}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        assert {"echo", "get_forecast", "divide", "media"} <= set(tools)
        forecast = tools["get_forecast"]
        assert forecast.metadata is not None
        assert forecast.metadata["annotations"] == {"readOnlyHint": True}
        assert forecast.metadata["server_name"] == "basic"
        assert forecast.metadata["name"] == "get_forecast"
        assert forecast.args_schema["required"] == ["city"]  # type: ignore[index]
        message = await forecast.ainvoke(call(forecast, {"city": "Oslo"}))
        assert isinstance(message, ToolMessage)
        assert message.status == "success"
        assert message.tool_call_id == "call-1"
        assert {"type": "mcp_structured_content", "data": {"city": "Oslo", "temperature_c": 4.5}} in message.artifact
        plain = await tools["echo"].ainvoke({"text": "plain"})
        assert [(block["type"], block["text"]) for block in plain] == [("text", "plain")]


async def test_every_content_type_becomes_a_standard_block() -> None:
    async with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        media = (await tools_of(bridge))["media"]
        message = await media.ainvoke(call(media, {}))
    kinds = [(block["type"], block.get("mime_type")) for block in message.content]
    assert kinds == [
        ("text", None),
        ("image", "image/png"),
        ("audio", "audio/wav"),
        ("text", None),
        ("image", "image/png"),  # an embedded image blob: an image block multimodal models read
        ("text", None),  # a file: link is described, never handed to a model integration to open
    ]
    assert message.content[3]["extras"] == {"uri": "memo://note"}
    assert message.content[4]["base64"] == basic.PNG
    assert "url" not in message.content[5]
    assert message.content[5]["extras"]["uri"] == "file:///tmp/report.pdf"


async def test_is_error_becomes_error_message_or_exception(any_server: dict[str, Any]) -> None:
    async with MCPBridge({"basic": any_server}, plugins=[]) as bridge:
        divide = (await tools_of(bridge))["divide"]
        message = await divide.ainvoke(call(divide, {"a": 1, "b": 0}))
        assert message.status == "error"
        assert "division by zero" in message.content[0]["text"]
        with pytest.raises(MCPToolError, match="division by zero") as raised:
            await divide.ainvoke({"a": 1, "b": 0})
        assert raised.value.result.is_error


async def test_invalid_arguments_never_reach_the_server() -> None:
    basic.CALLS.clear()
    async with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        echo = (await tools_of(bridge))["echo"]
        message = await echo.ainvoke(call(echo, {"txt": "typo"}))
        assert message.status == "error"
        assert '"text" is a required property' in message.content
        with pytest.raises(InvalidToolArguments, match='is not of type "string"'):
            await echo.ainvoke({"text": 3})
        assert basic.CALLS.get("echo", 0) == 0
        await echo.ainvoke({"text": "ok"})
        assert basic.CALLS["echo"] == 1


async def test_timeout_names_tool_server_and_limit(any_server: dict[str, Any]) -> None:
    # A limit the answer of the last call (over stdio, on a loaded machine) stays well within.
    async with MCPBridge({"basic": {**any_server, "timeout": 1}}, plugins=[]) as bridge:
        slow = (await tools_of(bridge))["slow"]
        started = asyncio.get_running_loop().time()
        message = await slow.ainvoke(call(slow, {"seconds": 10}))
        assert asyncio.get_running_loop().time() - started < 5
        assert message.status == "error"
        assert "'slow' on server 'basic' timed out after 1 s" in message.content
        assert (await slow.ainvoke({"seconds": 0}))[0]["text"] == "done"


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_two_hundred_concurrent_calls_share_one_session(transport: str, http_url: str) -> None:
    server = stdio_config() if transport == "stdio" else {"url": http_url}
    async with MCPBridge({"basic": server}, plugins=[]) as bridge:
        echo = (await tools_of(bridge))["echo"]
        session = await bridge.session("basic")
        results = await asyncio.gather(*(echo.ainvoke(call(echo, {"text": f"m{i}"}, f"c{i}")) for i in range(200)))
        assert [r.content[0]["text"] for r in results] == [f"m{i}" for i in range(200)]
        assert [r.tool_call_id for r in results] == [f"c{i}" for i in range(200)]
        assert await bridge.session("basic") is session


async def test_stdio_server_death_reconnects_and_close_leaves_no_process() -> None:
    async with MCPBridge({"basic": stdio_config()}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        first_pid = int((await tools["pid"].ainvoke({}))[0]["text"])
        with pytest.raises(ServerConnectionError, match="'die' on server 'basic'"):
            await tools["die"].ainvoke({})
        second_pid = int((await tools["pid"].ainvoke({}))[0]["text"])
        assert second_pid != first_pid
    with pytest.raises(ProcessLookupError):
        os.kill(second_pid, 0)


async def test_unreachable_server_is_named_and_can_be_handled_or_skipped() -> None:
    dead = {"url": "http://127.0.0.1:9/mcp", "connect_timeout": 5}
    async with MCPBridge({"dead": dead}, plugins=[]) as bridge:
        with pytest.raises(ServerConnectionError, match="server 'dead' is unreachable: .*ConnectError"):
            await bridge.list_tools()
    async with MCPBridge({"dead": dead, "basic": basic.build()}, plugins=[], on_server_error="skip") as bridge:
        assert "echo" in await tools_of(bridge)


async def test_transport_errors_raise_or_become_error_messages() -> None:
    for handle in (False, True):
        async with MCPBridge({"basic": stdio_config()}, plugins=[], handle_transport_errors=handle) as bridge:
            die = (await tools_of(bridge))["die"]
            if handle:
                message = await die.ainvoke(call(die, {}))
                assert message.status == "error"
                assert "server 'basic' is unreachable" in message.content
            else:
                with pytest.raises(ServerConnectionError):
                    await die.ainvoke(call(die, {}))


async def test_prefixes_and_name_collisions() -> None:
    servers = {"one": basic.build(), "two": basic.build()}
    async with MCPBridge(servers, plugins=[]) as bridge:
        with pytest.raises(ConfigError, match="'echo' is offered by servers 'one' and 'two'.*tool_name_prefix"):
            await bridge.list_tools()
    async with MCPBridge(servers, plugins=[], tool_name_prefix=True) as bridge:
        tools = await tools_of(bridge)
        assert {"one_echo", "two_echo"} <= set(tools)
        assert tools["two_echo"].metadata["name"] == "echo"  # type: ignore[index]


async def test_input_request_without_elicitation_plugin_says_what_to_install() -> None:
    async with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        confirm = (await tools_of(bridge))["confirm"]
        message = await confirm.ainvoke(call(confirm, {}))
    assert message.status == "error"
    hint = "no plugin answered elicitation; installed plugins that can: elicitation (mcpbridge-elicitation"
    assert hint in message.content


@pytest.mark.parametrize(
    ("mode", "tool", "args"),
    [
        ("legacy", "summarize", {"text": "a long text"}),  # the server's missing-capability error
        ("modern", "summarize", {"text": "a long text"}),
        ("modern", "brainstorm", {"rounds": 1}),  # an input round that asks for sampling
    ],
)
async def test_a_sampling_request_nobody_answers_names_sampling(mode: str, tool: str, args: dict[str, Any]) -> None:
    """Whether the server refuses for a missing capability or sends a round nobody answers,
    the hint is about sampling and its plugin, not about user input."""
    async with MCPBridge({"s": {"server": sampling_server.build(), "mode": mode}}, plugins=[]) as bridge:
        asking = (await tools_of(bridge))[tool]
        message = await asking.ainvoke(call(asking, args))
    assert message.status == "error"
    hint = "no plugin answered sampling; installed plugins that can: sampling (mcpbridge-sampling"
    assert hint in message.text, message.text
    assert "elicitation" not in message.text


async def test_tools_are_listed_once_per_connection_and_refreshed_on_request() -> None:
    server = basic.build()
    async with MCPBridge({"basic": server}, plugins=[]) as bridge:
        first = await bridge.list_tools()
        assert [t.name for t in first] == [t.name for t in await bridge.list_tools()]
        assert first[0] is (await bridge.list_tools())[0]

        @server.tool()
        def added() -> str:
            return "new"

        assert "added" not in await tools_of(bridge)
        assert "added" in {t.name for t in await bridge.list_tools(refresh=True)}


async def test_unknown_server_in_call_and_list() -> None:
    async with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        with pytest.raises(ConfigError, match="unknown server 'nope'"):
            await bridge.list_tools(servers=["nope"])
        with pytest.raises(ConfigError, match="has no tool 'nope'; its tools: .*echo"):
            await bridge.call_tool("basic", "nope")
        message = await bridge.call_tool("basic", "echo", {"text": "direct"})
        assert message.content[0]["text"] == "direct"


async def test_http_server_restart_reconnects() -> None:
    served = serve_http(basic.build())
    async with MCPBridge({"basic": {"url": served.url, "connect_timeout": 5}}, plugins=[]) as bridge:
        echo = (await tools_of(bridge))["echo"]
        assert (await echo.ainvoke({"text": "up"}))[0]["text"] == "up"
        await asyncio.to_thread(served.stop)
        with pytest.raises(ServerConnectionError, match="server 'basic'"):
            await echo.ainvoke({"text": "down"})
        again = await asyncio.to_thread(serve_http, basic.build(), served.port)
        try:
            assert (await echo.ainvoke({"text": "back"}))[0]["text"] == "back"
        finally:
            await asyncio.to_thread(again.stop)
