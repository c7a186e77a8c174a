"""A server that cannot be reached is reported by the key to fix: a stdio `command` that is
no program, a `cwd` that is no directory, a `url` nothing answers at, or whose path the
server does not serve (the same over streamable HTTP and SSE)."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpbridge import MCPBridge, ServerConnectionError
from mcpbridge.testing import serve_http
from tests.servers import basic


async def refusal(server: dict[str, Any]) -> str:
    """The error listing `server`'s tools raises."""
    async with MCPBridge({"s": server}, plugins=[]) as bridge:
        with pytest.raises(ServerConnectionError) as raised:
            await bridge.list_tools()
    assert raised.value.sent is False
    return str(raised.value)


async def test_a_command_that_is_no_program_names_the_key_and_the_program() -> None:
    said = await refusal({"command": "no-such-program-mcpbridge", "args": ["x"]})
    assert "`servers.s.command`: no such program 'no-such-program-mcpbridge'" in said
    assert "FileNotFoundError" not in said


async def test_a_cwd_that_is_no_directory_names_the_key(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone")
    said = await refusal({"command": sys.executable, "args": ["-c", "pass"], "cwd": missing})
    assert f"`servers.s.cwd`: no such directory {missing!r}" in said


@pytest.fixture
def free_url() -> str:
    """A loopback URL nothing listens at."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("transport", ["http", "sse"])
async def test_nothing_listening_names_the_url(free_url: str, transport: str) -> None:
    said = await refusal({"url": free_url, "transport": transport})
    assert f"nothing answers at {free_url}" in said
    assert "check that the server runs, and `servers.s.url`" in said


@pytest.fixture(params=["http", "sse"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(base URL, transport) of the sample server over streamable HTTP, then SSE."""
    server = basic.build()
    http = serve_http(server.sse_app() if request.param == "sse" else server.streamable_http_app())
    yield http.base_url, request.param
    http.stop()


async def test_a_path_the_server_does_not_serve_says_to_check_the_path(served: tuple[str, str]) -> None:
    base, transport = served
    said = await refusal({"url": f"{base}/wrong", "transport": transport})
    assert f"{base}/wrong answered HTTP 404 Not Found" in said
    assert "check the path of `servers.s.url`" in said
    assert "`/mcp`" in said


async def test_the_url_it_names_keeps_a_secret_out(free_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPBRIDGE_TEST_PATH_KEY", "sk-path-secret-0123456789")
    said = await refusal({"url": free_url.replace("/mcp", "/${MCPBRIDGE_TEST_PATH_KEY}/mcp")})
    assert f"nothing answers at {free_url.replace('/mcp', '/***/mcp')}" in said
    assert "sk-path-secret" not in said
