"""Real third-party MCP servers (installed by `bash tests/thirdparty/install.sh`) as bridge
server configs, and helpers to restart or kill them the way deploys and crashes do (the
fixtures are in tests/thirdparty/conftest.py)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.waiting import PATIENCE

HERE = Path(__file__).resolve().parents[1] / "thirdparty"
NODE_MODULES = HERE / ".node" / "node_modules" / "@modelcontextprotocol"
VENVS = HERE / ".venvs"
INSTALL = "bash tests/thirdparty/install.sh"

EVERYTHING = NODE_MODULES / "server-everything" / "dist" / "index.js"
FILESYSTEM = NODE_MODULES / "server-filesystem" / "dist" / "index.js"
MEMORY = NODE_MODULES / "server-memory" / "dist" / "index.js"

CURRENT = "2026.10.19"
"""The mcp 2.x releases of mcp-server-time / mcp-server-git (see locks/)."""
LEGACY = "2026.8.18"
"""Their mcp 1.x releases."""


def required() -> bool:
    """CI must run this tier: a missing install is a failure there, not a skip."""
    return os.environ.get("MCPBRIDGE_TEST_REQUIRE_SERVICES") == "1" or os.environ.get("CI", "").lower() == "true"


def missing() -> str | None:
    """Why the tier cannot run here (no node, nothing installed), or None."""
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not (HERE / ".node").is_dir() or not VENVS.is_dir():
        return f"third-party servers are not installed (run `{INSTALL}`)"
    return None


def need(path: Path) -> Path:
    """`path`, or a skip (a failure in CI) when the installer did not produce it."""
    if not path.exists():
        message = f"{path.relative_to(HERE)} is missing (run `{INSTALL}`)"
        if required():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path


# -- stdio servers ----------------------------------------------------------------------


def node_stdio(script: Path, *args: str, **extra: Any) -> dict[str, Any]:
    return {"command": "node", "args": [str(need(script)), *args], **extra}


def python_server(name: str, version: str, *args: str) -> dict[str, Any]:
    """A PyPI server's console script from its own venv `.venvs/<name>-<version>`."""
    return {"command": str(need(VENVS / f"{name}-{version}" / "bin" / name)), "args": list(args)}


def stdio_pid(marker: str, timeout: float = PATIENCE) -> int:
    """The pid of the one stdio server this test process started whose command line
    contains `marker` (the bridge starts servers as direct children)."""
    deadline = time.monotonic() + timeout
    while True:
        found = [pid for pid in _children(os.getpid()) if marker in _cmdline(pid)]
        if len(found) == 1:
            return found[0]
        if time.monotonic() > deadline:
            raise AssertionError(f"expected one child process running {marker!r}, found {found}")
        time.sleep(0.05)


def kill(pid: int) -> None:
    """SIGKILL `pid` and wait until it has exited (our child: reaped by the SDK or a zombie)."""
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} survived SIGKILL")


def _children(parent: int) -> list[int]:
    try:
        return [int(pid) for pid in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()]
    except FileNotFoundError:  # kernels without CONFIG_PROC_CHILDREN
        out = subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True).stdout
        return [int(pid) for pid in out.split()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (FileNotFoundError, ProcessLookupError):
        return ""


# -- server-everything over streamable HTTP ------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, timeout: float = PATIENCE) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s") from None
            time.sleep(0.02)


class NodeHTTPServer:
    """`server-everything streamableHttp` on a fixed loopback port, in a subprocess that can
    be restarted (same URL, all sessions forgotten) or killed."""

    def __init__(self, script: Path, port: int, log: Path) -> None:
        self.script = script
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def config(self) -> dict[str, Any]:
        return {"url": self.url}

    def start(self) -> None:
        assert self.process is None, "already running"
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                ["node", str(self.script), "streamableHttp"],
                env={**os.environ, "PORT": str(self.port)},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # it logs every request there
                stderr=log,
            )
        try:
            wait_for_port(self.port)
        except RuntimeError:
            self.kill()
            raise RuntimeError(f"server-everything did not start: {self.log.read_text()[-2000:]}") from None

    def kill(self) -> None:
        """SIGKILL: the port closes, every session is gone."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.kill()
        if process is not None:
            process.wait(timeout=5)

    def restart(self) -> None:
        """A deploy: the old process ends, a new one serves the same URL."""
        self.kill()
        self.start()
