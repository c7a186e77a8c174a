"""A stdio server's own children end with it: the bridge starts each server in a process group
of its own and ends the whole group on close and on reconnect, even when the server itself
exits at once on stdin EOF and never signals its helper."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge, ServerConnectionError
from mcpbridge.testing import stdio_config
from tests.helpers.waiting import until

pytestmark = [
    pytest.mark.serial,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups (Windows: a job object)"),
]

SERVER = """
import os, subprocess
from mcp.server.mcpserver import MCPServer

# A helper that does not watch its parent, as a browser or a language server would be.
helper = subprocess.Popen(
    ["sleep", "300"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
)
server = MCPServer("spawning")

@server.tool()
def helper_pid() -> int:
    return helper.pid

@server.tool()
def crash() -> str:
    os._exit(3)

server.run("stdio")  # returns at once on stdin EOF; nothing here ends the helper
"""


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(block["text"] for block in content)  # type: ignore[index]


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for a reaper has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc (macOS): signal 0 tells
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "spawning.py"
    path.write_text(SERVER)
    return path


async def test_the_helper_ends_with_aclose(script: Path) -> None:
    bridge = MCPBridge({"spawning": stdio_config(script)}, plugins=[], timeout=20)
    try:
        helper = int(text(await bridge.call_tool("spawning", "helper_pid")))
        assert running(helper)
    finally:
        await bridge.aclose()
    await until(lambda: not running(helper), "the end of the server's helper after aclose()")


async def test_a_crash_and_reconnect_leaves_no_helper_behind(script: Path) -> None:
    async with MCPBridge({"spawning": stdio_config(script)}, plugins=[], timeout=20) as bridge:
        helpers = [int(text(await bridge.call_tool("spawning", "helper_pid")))]
        for _ in range(2):
            with pytest.raises(ServerConnectionError, match="exited with code 3"):
                await bridge.call_tool("spawning", "crash")
            helpers.append(int(text(await bridge.call_tool("spawning", "helper_pid"))))
        assert len(set(helpers)) == 3, "each reconnect starts a new server"
        for old in helpers[:-1]:
            await until(lambda: not running(old), f"the end of the helper {old} of a crashed server")  # noqa: B023
        assert running(helpers[-1])
    await until(lambda: not running(helpers[-1]), "the end of the last helper after close")
