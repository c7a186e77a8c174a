"""langchain-mcp-adapters' client behaviours (tests/test_client.py, test_import.py, the
content conversions of test_tools.py and the failure naming of test_server_info.py there),
against the drop-in."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from mcpbridge_adapters.client import MultiServerMCPClient

from tests.adapters import servers
from tests.helpers.adapters import stdio_connection


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("client", ["MultiServerMCPClient", "Callbacks", "StdioConnection", "StreamableHttpConnection"]),
        (
            "tools",
            ["load_mcp_tools", "MCPToolArtifact", "convert_mcp_tool_to_langchain_tool", "to_fastmcp"],
        ),
        ("interceptors", ["MCPToolCallRequest", "MCPToolCallResult", "ToolCallInterceptor"]),
        ("callbacks", ["Callbacks", "CallbackContext", "LoggingMessageNotificationParams"]),
        ("prompts", ["load_mcp_prompt", "convert_mcp_prompt_message_to_langchain_message"]),
        ("resources", ["load_mcp_resources", "get_mcp_resource", "convert_mcp_resource_to_langchain_blob"]),
        ("server_info", ["load_mcp_server_info"]),
        ("sessions", ["Connection", "SSEConnection", "WebsocketConnection", "create_session"]),
    ],
)
def test_the_modules_users_import_from(module: str, names: list[str]) -> None:
    found = importlib.import_module(f"mcpbridge_adapters.{module}")
    assert all(hasattr(found, name) for name in names)


async def test_multi_server_client_with_installed_plugins(make_client: Any) -> None:
    """The default loads the installed mcpbridge plugins (all of this workspace's here)."""
    client = make_client(
        {"math": stdio_connection(), "weather": {"transport": "in_process", "server": servers.search("weather")}},
        plugins=None,
    )
    assert {"retry", "cache", "approval"} <= set(client.bridge.chain)
    tools = {tool.name: tool for tool in await client.get_tools()}
    assert set(tools) == {"add", "multiply", "search"}
    message = await tools["multiply"].ainvoke({"args": {"a": 3, "b": 4}, "id": "c", "type": "tool_call"})
    assert (message.status, message.content[0]["text"]) == ("success", "12")
    assert (await tools["search"].ainvoke({"query": "x"}))[0]["text"] == "weather: x"
    assert (await client.get_tools())[0] is (await client.get_tools())[0]  # built once per listing


async def test_async_with_closes_the_sessions(math_url: str) -> None:
    """Differs by design: the adapters refuse `async with`; here it closes the sessions."""
    async with MultiServerMCPClient({"math": {"url": math_url, "transport": "http"}}, plugins=[]) as client:
        assert len(await client.get_tools()) == 2
    assert not any(c.connected for c in client.bridge._connections.values())
    assert len(await client.get_tools()) == 2  # usable again: sessions reopen
    await client.aclose()


async def test_env_variables_expand_as_in_the_adapters(
    make_client: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`${VAR}` in a stdio `env` is expanded; an undefined one is passed on literally, with a
    warning; `${VAR}` elsewhere (an argument) is left as it is, as the adapters leave it."""
    monkeypatch.setenv("ADAPTERS_SET", "yes")
    monkeypatch.delenv("ADAPTERS_MISSING", raising=False)
    env = {"SET": "${ADAPTERS_SET}", "MISSING": "${ADAPTERS_MISSING}", "BARE": "p$ADAPTERS_SET"}
    client = make_client({"reach": {**stdio_connection("reach"), "env": env}})
    assert "unexpanded variable reference" in caplog.text
    tools = {tool.name: tool for tool in await client.get_tools()}
    seen = [(await tools["env"].ainvoke({"name": name}))[0]["text"] for name in env]
    assert seen == ["yes", "${ADAPTERS_MISSING}", "p$ADAPTERS_SET"]


async def test_content_conversions(make_client: Any, behaviours_url: str) -> None:
    """The adapters' blocks: `lc_` ids, links as file (or image) blocks with their URL, except
    that a link no model integration may open (`file:`, a server's own scheme) is described
    as text, as mcpbridge's own tools describe it: never handed on to be fetched."""
    client = make_client({"b": {"url": behaviours_url, "transport": "http"}})
    tools = {tool.name: tool for tool in await client.get_tools()}
    blocks = await tools["resources"].ainvoke({})
    assert all(block.pop("id").startswith("lc_") for block in blocks)
    described = [blocks[1].pop("text"), blocks[2].pop("text")]
    assert described == [
        "[resource link 't', text/plain; URI 'file:///a.txt', not opened: not an http(s) or data: URL]",
        "[resource link 'x'; URI 'file:///x', not opened: not an http(s) or data: URL]",
    ]
    assert all(block["type"] == "text" and "url" not in block for block in blocks[1:3])
    assert blocks == [
        {"type": "image", "url": "https://example.com/a.png", "mime_type": "image/png"},
        *blocks[1:3],
        {"type": "text", "text": "hello"},
        {"type": "image", "base64": servers.PNG, "mime_type": "image/png"},
        {"type": "file", "base64": servers.PNG, "mime_type": "application/pdf"},
        {"type": "text", "text": "one"},
        {"type": "text", "text": "two"},
    ]


async def test_server_info_names_every_failing_server(make_client: Any, math_url: str) -> None:
    client = make_client(
        {
            "math": {"url": math_url, "transport": "http"},
            "gone": {"url": "http://127.0.0.1:9/mcp", "transport": "http", "timeout": 2},
            "down": {"url": "http://127.0.0.1:9/other", "transport": "http", "timeout": 2},
        }
    )
    with pytest.raises(RuntimeError, match=r"2 of 3 MCP server\(s\)") as raised:
        await client.get_server_info()
    assert "'gone'" in str(raised.value)
    assert "'down'" in str(raised.value)
    assert (await client.get_server_info(server_name="math"))["math"].name == "math"
    assert await make_client({}).get_server_info() == {}
