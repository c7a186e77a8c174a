"""Shared fixtures: the sample server over in-process, stdio and streamable HTTP."""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from tests.servers import basic

ROOT = Path(__file__).resolve().parent.parent


def stdio_config(module: str = "tests.servers.basic", **extra: Any) -> dict[str, Any]:
    """Server config that runs `module` as a stdio MCP server."""
    return {"command": sys.executable, "args": ["-m", module], "cwd": str(ROOT), **extra}


def serve_http(app: Any, port: int | None = None) -> tuple[str, uvicorn.Server, threading.Thread]:
    """Serve a Starlette app on loopback (a free port unless given) in a thread; returns its base URL."""
    if port is None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("test HTTP server did not start")
        time.sleep(0.01)
    return f"http://127.0.0.1:{port}", server, thread


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """`with serving(mcp_server.streamable_http_app()) as url:` — the MCP endpoint's URL while
    the block runs; the server stops after it."""
    base, server, thread = serve_http(app)
    try:
        yield f"{base}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def http_url() -> Iterator[str]:
    """The sample server over streamable HTTP (one per test session)."""
    with serving(basic.build().streamable_http_app()) as url:
        yield url


@pytest.fixture
def inprocess() -> Any:
    return basic.build()


@pytest.fixture(params=["inprocess", "stdio", "http"])
def any_server(request: pytest.FixtureRequest, http_url: str) -> dict[str, Any]:
    """The sample server's config over each transport."""
    if request.param == "inprocess":
        return {"server": basic.build()}
    if request.param == "stdio":
        return stdio_config()
    return {"url": http_url}
