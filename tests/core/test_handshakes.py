"""One handshake per connect (issue 28): with every installed plugin loaded (some give
modern-only client options, such as an elicitation callback without `on_elicitation`), a
connect in `auto` mode to a legacy-protocol server probes once and shakes hands once, and a
modern server still gets those options."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import Context, MCPServer

from mcpbridge import MCPBridge
from mcpbridge.testing import serving
from tests.helpers import ROOT
from tests.servers import raw_jsonrpc
from tests.servers.method_log import MethodLog, logged

ONE_CONNECT = ["server/discover", "initialize", "notifications/initialized", "tools/list"]


async def test_a_legacy_stdio_server_gets_one_handshake_with_every_plugin_loaded(tmp_path: Path) -> None:
    log = tmp_path / "methods.log"
    server = {"command": sys.executable, "args": ["-m", "tests.servers.method_log", str(log)], "cwd": str(ROOT)}
    async with MCPBridge({"legacy": server}) as bridge:
        assert {tool.name for tool in await bridge.list_tools()} >= {"echo"}
        assert (await bridge.call_tool("legacy", "echo", {"text": "hi"})).status == "success"
    assert [message.get("method") for message in logged(log)] == [*ONE_CONNECT, "tools/call"]


async def test_a_legacy_http_server_gets_one_handshake_with_every_plugin_loaded() -> None:
    app = MethodLog(raw_jsonrpc.http_app())
    with serving(app) as url:
        async with MCPBridge({"legacy": {"url": url}}) as bridge:
            names = {tool.name for tool in await bridge.list_tools()}
        assert app.methods == ONE_CONNECT
        assert "ask" not in names  # offered only to clients that declared elicitation


async def test_a_modern_server_in_auto_mode_is_told_of_the_modern_only_options() -> None:
    server = MCPServer("modern")

    @server.tool()
    def declared(ctx: Context) -> str:
        """The client capabilities this request declared."""
        capabilities = ctx.client_capabilities
        return "elicitation" if capabilities is not None and capabilities.elicitation else "none"

    app = MethodLog(server.streamable_http_app())
    with serving(app) as url:
        async with MCPBridge({"modern": {"url": url}}, plugins=["elicitation"]) as bridge:
            message = await bridge.call_tool("modern", "declared")
        assert message.content[0]["text"] == "elicitation"  # type: ignore[index]
        assert app.methods.count("server/discover") == 1
        assert "initialize" not in app.methods
