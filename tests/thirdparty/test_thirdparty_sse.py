"""npm `@modelcontextprotocol/server-everything` over HTTP+SSE (`transport = "sse"`, issue 17):
the everyday calls and progress of test_thirdparty_everything.py, run here over SSE, and a
server that goes away and comes back on the same URL."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpbridge import MCPBridge
from mcpbridge.testing import SessionProbe
from tests.helpers.thirdparty import EVERYTHING, NodeHTTPServer, free_port, need, wait_for_port
from tests.helpers.waiting import until

from .support import invoke, text

# Collected here too: with this module's `everything` fixture they run against the SSE server.
from .test_thirdparty_everything import test_everyday_calls, test_progress_reaches_the_events_plugin

__all__ = ["test_everyday_calls", "test_progress_reaches_the_events_plugin"]


class NodeSSEServer(NodeHTTPServer):
    """`server-everything sse`: a GET stream at /sse, messages POSTed to /message."""

    def __init__(self, script: Path, port: int, log: Path) -> None:
        super().__init__(script, port, log)
        self.url = f"http://127.0.0.1:{port}/sse"

    @property
    def config(self) -> dict[str, Any]:
        return {"url": self.url, "transport": "sse"}

    def start(self) -> None:
        assert self.process is None, "already running"
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                ["node", str(self.script), "sse"],
                env={**os.environ, "PORT": str(self.port)},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
            )
        wait_for_port(self.port)


@pytest.fixture
def everything_sse(tmp_path: Path) -> Iterator[NodeSSEServer]:
    server = NodeSSEServer(need(EVERYTHING), free_port(), tmp_path / "everything-sse.log")
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def everything(everything_sse: NodeSSEServer) -> dict[str, Any]:
    return everything_sse.config


async def test_sse_server_gone_and_back(everything_sse: NodeSSEServer) -> None:
    """The end of the SSE stream is noticed while idle; the next call opens a new session."""
    async with MCPBridge({"ev": everything_sse.config}, plugins=[], timeout=10) as bridge:
        assert text(await invoke(bridge, "echo", {"message": "before"})) == "Echo: before"
        connection = SessionProbe(bridge, "ev")
        everything_sse.kill()
        await until(lambda: not connection.connected, "the bridge noticing the end of the SSE stream")
        everything_sse.start()
        after = await invoke(bridge, "echo", {"message": "after"})
        assert after.status == "success", text(after)
        assert text(after) == "Echo: after"
