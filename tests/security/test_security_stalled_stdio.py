"""A stdio server that stops reading its stdin (hung, or stopped with SIGSTOP) while a call
with more than a pipe's worth of arguments is on its way: every call still ends within its
timeout, the wedged session is dropped, and the next call starts a new server process."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge, ServerConnectionError
from mcpbridge.testing import stdio_config
from tests.helpers.waiting import PATIENCE, until

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

TIMEOUT_S = 2
SLACK_S = 4
"""Beyond the timeout, for a loaded 2-core machine; the old code took ~7 s for the big call
and never ended the calls queued behind it."""
BIG = 200_000
"""Bytes of arguments: more than the 64 KiB a pipe holds."""

SERVER = '''
import asyncio, os, signal, sys, time
from mcp.server.mcpserver import MCPServer

server = MCPServer("stalling")

@server.tool()
def echo(text: str) -> str:
    return text

@server.tool()
def pid() -> int:
    return os.getpid()

@server.tool()
async def stop_reading(how: str) -> str:
    """Answer, then stop reading stdin: `sleep` blocks the event loop, `sigstop` stops the process.
    The file named by argv[1] says it stopped (nothing reads stdin after it is written)."""

    def stop() -> None:
        open(sys.argv[1], "w").close()
        if how == "sleep":
            time.sleep(3600)
        else:
            os.kill(os.getpid(), signal.SIGSTOP)

    asyncio.get_running_loop().call_later(0.3, stop)
    return "stopping"

server.run("stdio")
'''


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(block["text"] for block in content)  # type: ignore[index]


async def timed(bridge: MCPBridge, tool: str, args: dict[str, Any]) -> tuple[float, str]:
    """How long the call took and what it said (`error: ...` when it failed)."""
    started = time.monotonic()
    try:
        message = await asyncio.wait_for(bridge.call_tool("stalling", tool, args), 30)
    except ServerConnectionError as error:  # a call queued behind the wedged write, as the session closes
        said = f"error: {error}"
    else:
        said = text(message) if message.status == "success" else f"error: {text(message)}"
    return time.monotonic() - started, said


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("how", ["sleep", "sigstop"])
async def test_every_call_honours_its_timeout_and_the_next_call_reconnects(tmp_path: Path, how: str) -> None:
    script = tmp_path / "stalling.py"
    script.write_text(SERVER)
    stopped = tmp_path / "stopped"
    async with MCPBridge({"stalling": stdio_config(script, str(stopped))}, plugins=[], timeout=TIMEOUT_S) as bridge:
        first_pid = int((await timed(bridge, "pid", {}))[1])
        assert (await timed(bridge, "stop_reading", {"how": how}))[1] == "stopping"
        await until(stopped.exists, "the server stopping reading its stdin")

        # A hung server's stdin reader may still be inside one line; the second one stays in the pipe.
        big = [timed(bridge, "echo", {"text": "x" * BIG}) for _ in range(2)]
        queued = [timed(bridge, "echo", {"text": f"queued {n}"}) for n in range(3)]
        ended = await asyncio.gather(*big, *queued)
        for took, said in ended:
            assert took < TIMEOUT_S + SLACK_S, f"a call took {took:.1f} s with timeout={TIMEOUT_S}"
            assert said.startswith("error: "), said[:200]
        assert "timed out after 2 s" in ended[0][1], ended[0][1]
        assert "read none of its stdin" in ended[0][1], ended[0][1]

        took, after = await timed(bridge, "pid", {})
        assert not after.startswith("error"), after
        assert int(after) != first_pid, "the wedged session was reused"
        assert took < PATIENCE / 2  # a new server process started: on a loaded machine, seconds
        assert not alive(first_pid), "the wedged server process was left running"
        assert (await timed(bridge, "echo", {"text": "y" * BIG}))[1] == "y" * BIG
