"""The drop-in's `${VAR}` in a stdio `env` is a secret as the core's `${NAME}` is: a
`MultiServerMCPClient` connection whose `env` takes a token from the environment, under a
name that does not look secret, and whose server quotes that token as it fails (a crash's
last stderr line under a call, a refusal to start), shows `***` in the raised error, the
ToolMessage and every log record (the root logger at DEBUG)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from mcpbridge_adapters.client import MultiServerMCPClient
from mcpbridge_adapters.sessions import StdioConnection

from mcpbridge import ServerConnectionError

TOKEN = "ghp_8c1f5e2a9d7b3046c2e5"
"""`${UPSTREAM_TOKEN}`: what the server gets as `UPSTREAM` (a name that does not look secret)."""
SERVER = '''
import os
import sys

from mcp.server.mcpserver import MCPServer

token = os.environ["UPSTREAM"]
if "--refuse" in sys.argv:
    sys.exit(f"fatal: the token {token} was refused")
server = MCPServer("upstream")


@server.tool()
def crash() -> str:
    """Print the token to stderr, then die."""
    sys.stderr.write(f"fatal: crashed holding {token}\\n")
    sys.stderr.flush()
    os._exit(3)


server.run()
'''


@pytest.fixture
def connection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> StdioConnection:
    monkeypatch.setenv("UPSTREAM_TOKEN", TOKEN)
    script = tmp_path / "upstream_server.py"
    script.write_text(SERVER)
    return {
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(script)],
        "env": {"UPSTREAM": "${UPSTREAM_TOKEN}"},
    }


def assert_logs_hidden(caplog: pytest.LogCaptureFixture) -> None:
    for record in caplog.records:
        assert TOKEN not in record.getMessage() + (record.exc_text or "")
    assert TOKEN not in caplog.text


def call(name: str) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": {}, "id": f"call-{name}"}


async def test_a_token_the_server_quotes_as_it_dies_under_a_call_is_hidden(
    connection: StdioConnection, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with MultiServerMCPClient({"upstream": connection}, plugins=[]) as client:
        [crash] = await client.get_tools()
        with pytest.raises(ServerConnectionError) as raised:  # as the adapters raise a lost connection
            await crash.ainvoke(call("crash"))
    async with MultiServerMCPClient({"upstream": connection}, plugins=[], handle_transport_errors=True) as client:
        [crash] = await client.get_tools()
        answer: ToolMessage = await crash.ainvoke(call("crash"))
    assert "fatal: crashed holding ***" in str(raised.value), raised.value
    assert TOKEN not in str(raised.value) + repr(raised.value)
    assert answer.status == "error"
    assert "fatal: crashed holding ***" in str(answer.content), answer.content
    assert TOKEN not in str(answer.content) + str(answer.artifact)
    assert any("crashed holding ***" in r.getMessage() for r in caplog.records)  # the stderr line, logged
    assert_logs_hidden(caplog)


async def test_a_token_the_server_quotes_as_it_refuses_to_start_is_hidden(
    connection: StdioConnection, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    connection["args"].append("--refuse")
    async with MultiServerMCPClient({"upstream": connection}, plugins=[]) as client:
        with pytest.raises(ServerConnectionError) as raised:
            await client.get_tools()
    assert "the token *** was refused" in str(raised.value), raised.value
    assert TOKEN not in str(raised.value) + repr(raised.value)
    assert_logs_hidden(caplog)
