"""The client says who it is (issue 28): `mcpbridge <version>` in `clientInfo` by default,
or the bridge's `client_name` / `client_version`, or a server's own; over stdio and
streamable HTTP, in the legacy `initialize` and on every modern request."""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from mcpbridge import MCPBridge, Settings
from mcpbridge.testing import make_server, serving
from tests.helpers import ROOT
from tests.servers.method_log import MethodLog, logged

CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
OURS = {"name": "mcpbridge", "version": version("mcpbridge")}


def echo(text: str) -> str:
    """Repeat the text."""
    return text


def introduced(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The clientInfo of every message that carries one (legacy `initialize`, modern `_meta`)."""
    found = []
    for message in messages:
        params = message.get("params") or {}
        info = params.get("clientInfo") or (params.get("_meta") or {}).get(CLIENT_INFO)
        if info is not None:
            found.append(info)
    return found


async def test_stdio_initialize_says_mcpbridge_and_its_version(tmp_path: Path) -> None:
    log = tmp_path / "messages.log"
    server = {"command": sys.executable, "args": ["-m", "tests.servers.method_log", str(log)], "cwd": str(ROOT)}
    async with MCPBridge({"legacy": {**server, "mode": "legacy"}}, plugins=[]) as bridge:
        await bridge.list_tools()
    [initialize] = [message for message in logged(log) if message.get("method") == "initialize"]
    assert initialize["params"]["clientInfo"] == OURS


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_http_sessions_say_the_bridges_or_the_servers_own(mode: str) -> None:
    app = MethodLog(make_server(echo).streamable_http_app())
    with serving(app) as url:
        async with MCPBridge({"s": {"url": url, "mode": mode}}, plugins=[]) as bridge:
            await bridge.call_tool("s", "echo", {"text": "hi"})
        assert introduced(app.messages)
        assert all(info == OURS for info in introduced(app.messages))

        app.messages.clear()
        settings = Settings(client_name="crm-agent", client_version="2.1")
        servers = {"s": {"url": url, "mode": mode}, "own": {"url": url, "mode": mode, "client_name": "weather"}}
        async with MCPBridge(servers, settings=settings, plugins=[]) as bridge:
            await bridge.call_tool("s", "echo", {"text": "hi"})
            await bridge.call_tool("own", "echo", {"text": "hi"})
        names = {(info["name"], info["version"]) for info in introduced(app.messages)}
        assert names == {("crm-agent", "2.1"), ("weather", "2.1")}


def test_a_servers_own_keys_win_and_the_bridges_follow_overrides() -> None:
    settings = Settings(client_name="a", servers={"s": {"url": "http://x.test/mcp", "client_version": "9"}})
    assert settings.servers["s"].client_info == ("a", "9")
    assert settings.with_overrides(client_name="b").servers["s"].client_info == ("b", "9")
    assert Settings(servers={"s": {"url": "http://x.test/mcp"}}).servers["s"].client_info == (
        "mcpbridge",
        OURS["version"],
    )
