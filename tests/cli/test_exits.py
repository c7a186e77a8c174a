"""Every `mcpbridge` command stops with one line when told to (Ctrl-C, SIGTERM): exit status
128 + the signal, no traceback, and its stdio servers end with it."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import pytest

from tests.cli.stopping import LINE, MCPBRIDGE, SIGNALS, Running, alive, wait_until
from tests.helpers import ROOT


def server(name: str, module: str, *args: str) -> str:
    return f"""
[servers.{name}]
command = {json.dumps(sys.executable)}
args = {json.dumps(["-m", module, *args])}
cwd = {json.dumps(str(ROOT))}
"""


def stopped_with_one_line(running: Running, number: int) -> None:
    status, after = running.stop(number)
    assert status == 128 + number, after
    assert after.strip().splitlines() == [f"mcpbridge: {LINE[number]}"]
    assert running.left == [], "a child process outlived the command"


@pytest.mark.parametrize("number", SIGNALS, ids=lambda n: signal.Signals(n).name)
def test_tools_stops_while_a_stdio_server_starts(number: int, tmp_path: Path) -> None:
    started = tmp_path / "pid"
    config = server("slow", "tests.cli.starting_server", str(started)) + server("basic", "tests.servers.basic")
    (tmp_path / "mcpbridge.toml").write_text(config + "[plugins]\nautoload = false\n")
    running = Running(MCPBRIDGE, "tools", cwd=tmp_path)
    wait_until(lambda: started.is_file() and started.read_text() != "", "the slow server's start")
    child = int(started.read_text())
    stopped_with_one_line(running, number)
    assert not alive(child)


@pytest.mark.parametrize("number", SIGNALS, ids=lambda n: signal.Signals(n).name)
def test_call_stops_at_the_approval_question(number: int, tmp_path: Path) -> None:
    config = server("crm", "mcpbridge_demo.servers", "crm")
    (tmp_path / "mcpbridge.toml").write_text(config + '[plugins]\nautoload = false\nenabled = ["approval"]\n')
    running = Running(MCPBRIDGE, "call", "crm", "delete_contact", "contact_id=c2", cwd=tmp_path)
    running.wait_for("allow? [y/N]")
    stopped_with_one_line(running, number)
