"""LangGraph's own server for end-to-end tests: `langgraph dev` (the in-memory runtime of
langgraph-cli[inmem]) on a copy of a project, offline, on a free port, until the test ends."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

START_TIMEOUT_S = 90
DEV_OPTIONS = ("--no-browser", "--no-reload", "--n-jobs-per-worker", "4", "--server-log-level", "WARNING")
LANGGRAPH = shutil.which("langgraph", path=str(Path(sys.executable).parent))
OFFLINE_ENV = {  # nothing in the server may reach the network
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_API_KEY": "",
    "LANGCHAIN_API_KEY": "",
    "LANGGRAPH_CLOUD_LICENSE_KEY": "",
}


@dataclass
class Server:
    """A running `langgraph dev`."""

    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def need_langgraph() -> str:
    """The `langgraph` command; skips the test without it (fails it where services are required)."""
    if LANGGRAPH is None:
        message = 'the `langgraph` command is missing: pip install "langgraph-cli[inmem]" (requirements-dev.txt)'
        if os.environ.get("MCPBRIDGE_TEST_REQUIRE_SERVICES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return LANGGRAPH


@contextmanager
def langgraph_dev(source: Path, project: Path, env: Mapping[str, str], *, stop_s: float = 30) -> Iterator[Server]:
    """`langgraph dev` serving a copy of `source` made at `project` (its dev persistence,
    `.langgraph_api/`, stays out of the repository), with `env` over the offline environment;
    stopped with SIGTERM (then killed after `stop_s`) unless the test stopped it."""
    command = need_langgraph()
    shutil.copytree(source, project, ignore=shutil.ignore_patterns("__pycache__", ".langgraph_api"))
    port, log = free_port(), project / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [command, "dev", "--port", str(port), *DEV_OPTIONS],
            cwd=project,
            env={**os.environ, **OFFLINE_ENV, **env},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    running = Server(process, f"http://127.0.0.1:{port}", log)
    try:
        _wait_ok(running)
        yield running
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=stop_s)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_ok(server: Server) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"`langgraph dev` exited with {server.process.returncode}:\n{server.output()[-5000:]}")
        try:
            with urllib.request.urlopen(f"{server.url}/ok", timeout=1) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    pytest.fail(f"`langgraph dev` did not answer /ok within {START_TIMEOUT_S} s:\n{server.output()[-5000:]}")
