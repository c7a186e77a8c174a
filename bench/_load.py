"""Helpers for the load benches: a trivial echo MCP server run by uvicorn in its own
process on loopback, and the process figures (RSS, open file descriptors, asyncio tasks)."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette

from mcpbridge.testing import make_server

BENCH = Path(__file__).resolve().parent
START_TIMEOUT_S = 30


def echo(text: str) -> str:
    """Echo the text back."""
    return text


def echo_server() -> MCPServer:
    server = make_server(echo, name="echo")
    logging.getLogger("mcp").setLevel(logging.WARNING)  # not a line per session
    return server


def stateless_app() -> Starlette:
    """The echo server's streamable HTTP app, stateless: any uvicorn worker answers any request."""
    return echo_server().streamable_http_app(stateless_http=True, json_response=True)


def stateful_app() -> Starlette:
    """The echo server's streamable HTTP app as `MCPServer` serves it by default (one worker only)."""
    return echo_server().streamable_http_app()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Served(NamedTuple):
    url: str
    pid: int


@contextmanager
def loopback_server(workers: int = 1, *, stateless: bool = True) -> Iterator[Served]:
    """Run the echo server with `uvicorn --workers N` in a child process, for as long as the
    block runs; yields its MCP URL and the uvicorn process id."""
    if workers > 1 and not stateless:
        raise ValueError("a stateful MCP server keeps sessions in memory: serve it with one uvicorn worker")
    port = _free_port()
    factory = "_load:stateless_app" if stateless else "_load:stateful_app"
    command = [sys.executable, "-m", "uvicorn", "--factory", factory, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", str(workers), "--log-level", "warning", "--no-access-log"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(BENCH), os.environ.get("PYTHONPATH")]))}
    child = subprocess.Popen(command, env=env, cwd=BENCH)
    try:
        _wait_for(port, child)
        yield Served(f"http://127.0.0.1:{port}/mcp", child.pid)
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _wait_for(port: int, child: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if child.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the echo server did not start on port {port} (exit code {child.poll()})") from None
            time.sleep(0.05)


def rss_bytes() -> int:
    """This process's resident set size, from /proc/self/status."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS line in /proc/self/status (the load benches need Linux)")


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by process `pid` and its children still alive
    (uvicorn's worker processes)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the process ended meanwhile
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def task_count() -> int:
    return len(asyncio.all_tasks())
