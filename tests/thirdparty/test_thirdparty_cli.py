"""`mcpbridge call` and `mcpbridge tools` while they wait: a call's MCP progress as a live
tqdm bar on a terminal and as plain lines otherwise (both on stderr), the servers still
starting, and Ctrl-C cancelling the call on the server (`notifications/cancelled`, exit 130)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.thirdparty import EVERYTHING, HERE, node_stdio
from tests.helpers.waiting import PATIENCE, until_sync

CLI = [sys.executable, "-m", "mcpbridge_cli"]
SLOW = HERE / "servers" / "slow_server.py"

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # each test starts servers (and the CLI) of its own


def config(tmp_path: Path, *top: str, **servers: dict[str, Any]) -> Path:
    lines = list(top)
    for name, server in servers.items():
        lines += [
            f"[servers.{name}]",
            f"command = {json.dumps(server['command'])}",
            f"args = {json.dumps(server['args'])}",
        ]
    path = tmp_path / "mcpbridge.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def slow(tmp_path: Path) -> dict[str, Any]:
    """A server whose `wait` tool reports progress each second, and marks a cancel."""
    return {"command": sys.executable, "args": [str(SLOW), str(tmp_path / "cancelled")]}


def test_progress_as_plain_lines_when_not_a_terminal(tmp_path: Path) -> None:
    toml = config(tmp_path, ev=node_stdio(EVERYTHING, "stdio"))
    arguments = '{"duration": 1, "steps": 3}'
    done = subprocess.run(
        [*CLI, "call", "--config", str(toml), "ev", "trigger-long-running-operation", arguments],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("progress:")] == [
        "progress: 1/3",
        "progress: 2/3",
        "progress: 3/3",
    ]
    assert "progress" not in done.stdout
    assert done.stdout.startswith("status: success")


def test_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    toml = config(tmp_path, slow=slow(tmp_path))
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows, 100 columns
    process = subprocess.Popen(
        [*CLI, "call", "--config", str(toml), "slow", "wait", '{"seconds": 2}'], stdout=child, stderr=child
    )
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed: the command exited
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    assert process.wait(timeout=30) == 0
    screen = seen.decode(errors="replace")
    assert "second 2" in screen
    assert "2/2" in screen  # tqdm's counter
    assert "|" in screen  # tqdm's bar
    assert "progress:" not in screen
    assert "status: success" in screen


def test_ctrl_c_cancels_the_call_on_the_server(tmp_path: Path) -> None:
    toml = config(tmp_path, slow=slow(tmp_path))
    process = subprocess.Popen(
        [*CLI, "call", "--config", str(toml), "slow", "wait", '{"seconds": 60}'],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's Ctrl-C
    )
    assert process.stderr is not None
    assert process.stderr.readline().startswith("progress: 1/60")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 130, err
    assert err.endswith("mcpbridge: interrupted\n"), err  # one line after the progress, no traceback
    assert "Traceback" not in err
    until_sync((tmp_path / "cancelled").exists, "the server's tool being cancelled")
    assert (tmp_path / "cancelled").read_text() == "cancelled"


def test_tools_shows_which_servers_are_starting(tmp_path: Path) -> None:
    broken = {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}
    servers = {"ev": node_stdio(EVERYTHING, "stdio"), "slow": slow(tmp_path), "broken": broken}
    toml = config(tmp_path, 'on_server_error = "skip"', **servers)
    done = subprocess.run([*CLI, "tools", "--config", str(toml)], capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    states = sorted(line.rsplit(" (", 1)[0] for line in done.stderr.splitlines() if line.endswith(" s)"))
    assert states == ["server broken: failed", "server ev: ready", "server slow: ready"]
    assert done.stderr.count("leaving out the tools of server 'broken'") == 1  # connected once, reported once
    assert "slow/wait" in done.stdout
    assert "ev/echo" in done.stdout
