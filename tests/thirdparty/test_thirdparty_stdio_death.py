"""Stdio servers that die (issue 13 point 2): killed while idle, the bridge notices at once
(`connected` turns False) and the next call opens a new session and succeeds; a call in
flight when the server dies fails fast with a clear error, not after its timeout."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from mcpbridge import MCPBridge, ServerConnectionError
from mcpbridge.testing import SessionProbe
from tests.helpers.thirdparty import CURRENT, LEGACY, kill, stdio_pid
from tests.helpers.waiting import PATIENCE, until

from .support import invoke, structured, text

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone


async def killed_while_idle(
    config: dict[str, Any], marker: str, first: tuple[str, dict[str, Any]], then: tuple[str, dict[str, Any]]
) -> Any:
    """Call `first`, kill the server, wait for the bridge to notice, call `then`."""
    async with MCPBridge({"server": config}, plugins=[], timeout=30) as bridge:
        connection = SessionProbe(bridge, "server")
        before = await invoke(bridge, *first)
        assert before.status == "success", text(before)
        assert connection.connected
        kill(stdio_pid(marker))
        # Noticed on its own: without the exit watcher only the next call would find out.
        await until(lambda: not connection.connected, "the bridge noticing that the server process exited")
        started = time.monotonic()
        after = await invoke(bridge, *then, id="call-2")
        assert after.status == "success", text(after)
        assert time.monotonic() - started < 20  # a new server process: seconds on a loaded machine
        assert connection.connected
        return after


async def test_memory_killed_while_idle(memory: dict[str, Any]) -> None:
    ada = {"entities": [{"name": "Ada", "entityType": "person", "observations": []}]}
    graph = await killed_while_idle(memory, "server-memory", ("create_entities", ada), ("read_graph", {}))
    # the graph lives in a file, so the new process answers from the same graph
    assert [entity["name"] for entity in structured(graph)["entities"]] == ["Ada"]


@pytest.mark.parametrize("version", [CURRENT, LEGACY])
async def test_time_killed_while_idle(time_server: Callable[[str], dict[str, Any]], version: str) -> None:
    config = time_server(version)
    utc = ("get_current_time", {"timezone": "Etc/UTC"})
    now = await killed_while_idle(config, config["command"], utc, utc)
    assert '"timezone": "Etc/UTC"' in text(now)


async def test_in_flight_call_fails_fast_when_the_server_dies(everything_stdio: dict[str, Any]) -> None:
    async with MCPBridge({"ev": everything_stdio}, plugins=[], timeout=30) as bridge:
        connection = SessionProbe(bridge, "ev")
        pending = asyncio.ensure_future(invoke(bridge, "trigger-long-running-operation", {"duration": 20, "steps": 20}))
        await until(lambda: bool(bridge.calls_in_flight("ev")), "the long call in flight")
        assert not pending.done()
        kill(stdio_pid("server-everything"))
        started = time.monotonic()
        try:
            failed = await asyncio.wait_for(pending, timeout=PATIENCE)
        except ServerConnectionError as exc:
            message = str(exc)
        else:
            assert failed.status == "error"
            message = text(failed)
        assert time.monotonic() - started < 10  # the operation lasts 20 s, the timeout 30 s
        assert "'ev'" in message
        assert "closed" in message or "exit" in message, message
        await until(lambda: not connection.connected, "the bridge dropping the dead session")
        echo = await invoke(bridge, "echo", {"message": "again"})
        assert text(echo) == "Echo: again"
