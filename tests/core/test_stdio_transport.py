"""Our stdio transport against real subprocess servers: bad stdout lines, stderr, large and
oversized results, and the end of the read stream when the server goes away."""

from __future__ import annotations

import logging
import os
import signal
import sys
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, INTERNAL_ERROR, TextContent

from mcpbridge._session.stdio import StdioTransport
from tests.helpers.waiting import PATIENCE, until

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

ROOT = str(Path(__file__).resolve().parents[2])
MB = 1_000_000


def transport(module: str, name: str = "noisy", max_message_bytes: int | None = None) -> StdioTransport:
    return StdioTransport(
        sys.executable, ["-m", module], None, ROOT, server_name=name, max_message_bytes=max_message_bytes
    )


def noisy(max_message_bytes: int | None = None) -> StdioTransport:
    return transport("tests.servers.noisy_stdio", "noisy", max_message_bytes)


def raw(max_message_bytes: int | None = None) -> StdioTransport:
    return transport("tests.servers.raw_stdio", "raw", max_message_bytes)


def text(result: object) -> str:
    content = getattr(result, "content", [])
    assert isinstance(content[0], TextContent)
    return content[0].text


async def test_calls_the_sample_server() -> None:
    async with Client(transport("tests.servers.basic", "basic")) as client:
        assert text(await client.session.call_tool("echo", {"text": "hi"})) == "hi"
        assert {t.name for t in (await client.list_tools()).tools} >= {"echo", "divide"}


async def test_a_bad_stdout_line_is_dropped_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "mcpbridge._session.stdio")
    async with Client(noisy(), mode="legacy") as client:
        for kind, size, problem in [("utf8", 16, "not valid UTF-8"), ("text", 18, "not a JSON-RPC message")]:
            caplog.clear()
            result = await client.session.call_tool("stray_stdout", {"kind": kind}, read_timeout_seconds=30)
            assert text(result) == "after the stray line"
            assert text(await client.session.call_tool("echo", {"text": "still here"})) == "still here"
            warnings = [r.getMessage() for r in caplog.records if r.name == "mcpbridge._session.stdio"]
            assert len(warnings) == 1, warnings
            assert warnings[0] == f"MCP server 'noisy' sent a stdout line of {size} bytes that is {problem}; dropped it"
            assert "hello" not in warnings[0]


async def test_stderr_goes_to_the_server_logger_not_the_terminal_and_tells_why_it_died(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.INFO, "mcpbridge.server.noisy")
    server = noisy()
    async with Client(server, mode="legacy") as client:
        await client.session.call_tool("shout", {"text": "boo"})
        start = time.perf_counter()
        with pytest.raises(MCPError) as caught:
            await client.session.call_tool("die", {"last_words": "out of memory"}, read_timeout_seconds=30)
        assert caught.value.error.code == CONNECTION_CLOSED
        assert time.perf_counter() - start < 20  # not the 30 s timeout
        assert server.stderr_tail().splitlines() == ["noisy server starting", "stderr says boo", "out of memory"]
        assert server.returncode == 3
    logged = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "mcpbridge.server.noisy"]
    assert logged == [(logging.INFO, line) for line in ("noisy server starting", "stderr says boo", "out of memory")]
    captured = capfd.readouterr()
    assert "noisy server" not in captured.err + captured.out


async def test_large_results_take_linear_time() -> None:
    async def seconds(client: Client, size: int) -> float:
        best = float("inf")
        for _ in range(2):
            start = time.perf_counter()
            assert len(text(await client.session.call_tool("big", {"size": size}))) == size
            best = min(best, time.perf_counter() - start)
        return best

    async with Client(raw(), mode="legacy") as client:
        await seconds(client, MB)  # warm up
        four, sixteen = await seconds(client, 4 * MB), await seconds(client, 16 * MB)
    # Linear is 4x; the SDK's quadratic reader takes about 4.5 s for 16 MB.
    assert sixteen < 6 * four + 0.1, (four, sixteen)
    assert sixteen < 2.5


@pytest.mark.parametrize("python", [True, False], ids=["id-first", "id-last"])
async def test_an_oversized_result_fails_its_call_at_once(python: bool) -> None:
    server = noisy(max_message_bytes=MB) if python else raw(max_message_bytes=MB)
    async with Client(server, mode="legacy") as client:
        start = time.perf_counter()
        with pytest.raises(MCPError) as caught:
            await client.session.call_tool("big", {"size": 3 * MB}, read_timeout_seconds=30)
        assert time.perf_counter() - start < 20  # not the 30 s timeout
        assert caught.value.error.code == INTERNAL_ERROR
        message = caught.value.error.message
        assert f"exceeds max_result_bytes=1000000 for server {server.server_name!r}" in message
        assert int(message.split()[2]) > 3 * MB  # "result of N bytes ..."
        assert text(await client.session.call_tool("big", {"size": 10})) == "x" * 10


async def test_a_garbled_answer_fails_its_call_at_once() -> None:
    async with Client(raw(), mode="legacy") as client:
        with pytest.raises(MCPError, match="'raw' sent a stdout line of .* not valid UTF-8"):
            await client.session.call_tool("garbled", {}, read_timeout_seconds=30)
        assert text(await client.session.call_tool("big", {"size": 3})) == "xxx"


async def test_the_read_stream_ends_when_the_idle_server_is_killed() -> None:
    server = raw()
    async with server as (read, _write):
        assert server.pid is not None
        assert server.returncode is None
        os.kill(server.pid, signal.SIGKILL)
        with anyio.fail_after(PATIENCE), pytest.raises(anyio.EndOfStream):
            await read.receive()
        assert server.returncode == -signal.SIGKILL


async def test_the_read_stream_ends_when_the_server_exits_though_a_child_holds_stdout() -> None:
    # The child holds stdout for longer than the test waits: only the exit can end the stream.
    command = f"sleep {2 * PATIENCE:g} & exec {sys.executable} -m tests.servers.raw_stdio"
    server = StdioTransport("sh", ["-c", command], None, ROOT, server_name="held")
    async with server as (read, _write):
        pid = server.pid
        assert pid is not None
        # The shell became the server: its child was started before.
        await until(lambda: b"raw_stdio" in Path(f"/proc/{pid}/cmdline").read_bytes(), "the shell's exec")
        os.kill(pid, signal.SIGKILL)
        with anyio.fail_after(PATIENCE), pytest.raises(anyio.EndOfStream):
            await read.receive()
        assert server.returncode == -signal.SIGKILL
