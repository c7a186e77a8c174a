"""`mcpbridge demo` and `mcpbridge inspect` stop with one line when told to (Ctrl-C, SIGTERM):
exit status 128 + the signal, no traceback, no child process or listening port left; and
`mcpbridge demo --http` serves the sample servers to any MCP client."""

from __future__ import annotations

import importlib.util
import re
import signal
import socket
import sys

import pytest

from mcpbridge import MCPBridge
from tests.cli.stopping import LINE, MCPBRIDGE, Running


def stopped_with_one_line(running: Running, number: int, prog: str = "mcpbridge") -> None:
    status, after = running.stop(number)
    assert status == 128 + number, after
    assert after.strip().splitlines() == [f"{prog}: {LINE[number]}"]
    assert running.left == [], "a child process outlived the command"


def listening(url: str) -> bool:
    host, port = re.findall(r"//([\d.]+):(\d+)", url)[0]
    with socket.socket() as sock:
        return sock.connect_ex((host, int(port))) == 0


def test_ctrl_c_at_the_demo_question_stops_it() -> None:
    running = Running(MCPBRIDGE, "demo", terminal=True)  # a person at a terminal: the demo asks
    running.wait_for("date [2026-12-24]: ")
    stopped_with_one_line(running, signal.SIGINT)


@pytest.mark.parametrize(
    ("command", "number", "prog"),
    [
        ((MCPBRIDGE, "inspect"), signal.SIGTERM, "mcpbridge"),
        ((sys.executable, "-m", "mcpbridge_demo", "inspect"), signal.SIGINT, "python -m mcpbridge_demo"),
    ],
    ids=["mcpbridge-inspect-SIGTERM", "python-m-SIGINT"],
)
def test_the_inspector_stops_and_frees_its_port(command: tuple[str, ...], number: int, prog: str) -> None:
    running = Running(*command, "--port", "0")
    url = re.findall(r"mcpbridge inspector: (\S+)", running.wait_for("Ctrl-C to stop)\n"))[0]
    assert listening(url)
    stopped_with_one_line(running, number, prog)
    assert not listening(url)


async def test_demo_http_serves_the_sample_servers_until_stopped() -> None:
    running = Running(MCPBRIDGE, "demo", "--http", "0")
    printed = running.wait_for("[servers.flaky]\nurl = ")
    urls = dict(re.findall(r'\[servers\.(\w+)\]\nurl = "(\S+)"', printed))
    assert set(urls) == {"weather", "calculator", "crm", "booking", "flaky"}
    async with MCPBridge({name: {"url": url} for name, url in urls.items()}) as bridge:
        assert "sunny spells" in str((await bridge.call_tool("weather", "get_forecast", {"city": "Oslo"})).content)
        assert "5.0" in str((await bridge.call_tool("calculator", "add", {"a": 2, "b": 3})).content)
    stopped_with_one_line(running, signal.SIGINT)
    assert not listening(urls["crm"])


@pytest.mark.skipif(importlib.util.find_spec("langchain_openai") is not None, reason="langchain-openai is installed")
def test_a_missing_model_integration_is_one_line_naming_the_pip_command() -> None:
    running = Running(MCPBRIDGE, "demo", "--model", "openai:gpt-x")
    assert running.process.wait(60) == 1
    out = running.wait_for("pip install langchain-openai")
    assert len(out.splitlines()) == 1, out
    assert out.startswith("mcpbridge: error: --model openai:gpt-x: ")


def test_demo_http_on_a_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        running = Running(MCPBRIDGE, "demo", "--http", str(port))
        assert running.process.wait(60) == 1
        out = running.wait_for("choose another --http PORT")
    assert out.splitlines() == [
        f"mcpbridge: error: cannot serve on 127.0.0.1:{port}: Address already in use; choose another --http PORT"
    ]
