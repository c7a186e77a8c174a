"""Streamable HTTP servers restarting on the same URL (issue 13 point 1): the old session is
gone, the server never ran the request, so the bridge opens a new session and sends it again,
once; the caller sees a normal result. Listing tools too."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from mcpbridge import MCPBridge, ServerConnectionError
from mcpbridge.testing import SessionProbe, serve_http
from tests.helpers.thirdparty import NodeHTTPServer, free_port
from tests.helpers.waiting import PATIENCE

from .support import invoke, text, tools_of

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


async def test_everything_restarted_next_call_succeeds(everything_http: NodeHTTPServer) -> None:
    async with MCPBridge({"ev": everything_http.config}, plugins=[], timeout=30) as bridge:
        assert text(await invoke(bridge, "echo", {"message": "before"})) == "Echo: before"
        everything_http.restart()
        started = time.monotonic()
        after = await invoke(bridge, "echo", {"message": "after"})
        assert after.status == "success", text(after)
        assert text(after) == "Echo: after"
        assert time.monotonic() - started < 15  # not the 30 s timeout
        assert SessionProbe(bridge, "ev").connected
        again = await invoke(bridge, "get-sum", {"a": 1, "b": 2})
        assert again.status == "success", text(again)


async def test_everything_restarted_listing_tools_succeeds(everything_http: NodeHTTPServer) -> None:
    async with MCPBridge({"ev": everything_http.config}, plugins=[], timeout=30) as bridge:
        assert "echo" in await tools_of(bridge)
        everything_http.restart()
        assert "echo" in await tools_of(bridge, refresh=True)


async def test_everything_down_then_back(everything_http: NodeHTTPServer) -> None:
    """While nothing listens a call fails at once with a connection error; once the server
    is back the next call works."""
    async with MCPBridge({"ev": everything_http.config}, plugins=[], timeout=30) as bridge:
        assert text(await invoke(bridge, "echo", {"message": "before"})) == "Echo: before"
        everything_http.kill()
        started = time.monotonic()
        try:
            down = text(await invoke(bridge, "echo", {"message": "down"}))
        except ServerConnectionError as exc:
            down = str(exc)
        assert "'ev'" in down
        assert time.monotonic() - started < 15  # not the 30 s timeout
        everything_http.start()
        back = await invoke(bridge, "echo", {"message": "back"})
        assert back.status == "success", text(back)
        assert text(back) == "Echo: back"


# -- a spec-following server (answers 404 to an unknown Mcp-Session-Id) -------------------


def spec_server() -> MCPServer:
    server = MCPServer("spec")

    @server.tool()
    def echo(text: str) -> str:
        """Answer with `text`."""
        return text

    return server


class SpecHTTPServer:
    """The mcp SDK's own streamable HTTP app on a fixed port, restartable."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._server: Any = None
        self._thread: Any = None

    def start(self) -> None:
        _, self._server, self._thread = serve_http(spec_server().streamable_http_app(), port=self.port)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._thread.join(timeout=PATIENCE)
            self._server = None

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture
def spec_http() -> Iterator[SpecHTTPServer]:
    server = SpecHTTPServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


async def test_spec_server_restarted_next_call_succeeds(spec_http: SpecHTTPServer) -> None:
    """Legacy mode keeps an `Mcp-Session-Id`; after the restart the server answers it with
    HTTP 404 (`Session not found`), which the spec says means: start a new session."""
    async with MCPBridge({"spec": {"url": spec_http.url, "mode": "legacy"}}, plugins=[], timeout=30) as bridge:
        assert text(await invoke(bridge, "echo", {"text": "before"})) == "before"
        spec_http.restart()
        after = await invoke(bridge, "echo", {"text": "after"})
        assert after.status == "success", text(after)
        assert text(after) == "after"
        spec_http.restart()
        assert "echo" in await tools_of(bridge, refresh=True)
