"""The sign-in server runs on its own (a browser test starts it so): it prints `ready <url>`
once it serves, and its authorization server answers there."""

from __future__ import annotations

import subprocess
import sys

import httpx2

from tests.helpers import ROOT
from tests.servers.signin_server import free_port


def test_the_server_runs_alone_and_says_where() -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.servers.signin_server", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # waits for the server to say it serves
        assert line == f"ready http://127.0.0.1:{port}/mcp\n"
        metadata = httpx2.get(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp").json()
        assert metadata["authorization_servers"] == [f"http://127.0.0.1:{port}/"]
    finally:
        process.terminate()
        process.wait(timeout=30)
