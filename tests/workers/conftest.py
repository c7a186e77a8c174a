"""Worker processes that share one counting MCP server (streamable HTTP) and PostgreSQL
checkpoints; fixtures start them once per module, in parallel (each takes seconds to import)."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from mcpbridge.testing import serve_http
from tests.conftest import ROOT, service_url
from tests.servers import counting

ANSWER_TIMEOUT = 60.0


class Worker:
    """`python -m tests.workers.worker`: one JSON command per line in, one JSON answer out."""

    def __init__(self, name: str, postgres: str, mcp_url: str) -> None:
        self.name = name
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - open for the worker's whole life
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.workers.worker", postgres, mcp_url],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._answers: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._answers.put(json.loads(line))

    def send(self, **command: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def answer(self, timeout: float = ANSWER_TIMEOUT) -> dict[str, Any]:
        try:
            return self._answers.get(timeout=timeout)
        except queue.Empty:
            self._stderr.seek(0)
            raise AssertionError(f"worker {self.name} did not answer: {self._stderr.read().decode()[-3000:]}") from None

    def ask(self, **command: Any) -> dict[str, Any]:
        self.send(**command)
        return self.answer()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self._stderr.close()


@pytest.fixture(scope="module")
def counting_server() -> Iterator[tuple[str, Counter[str]]]:
    server, calls = counting.build()
    served = serve_http(server)
    try:
        yield served.url, calls
    finally:
        served.stop()


@pytest.fixture(scope="module")
def checkpoints(postgres_url: str) -> str:
    """The PostgreSQL checkpointer's tables exist (workers only connect)."""

    async def setup() -> None:
        async with AsyncPostgresSaver.from_conn_string(postgres_url) as saver:
            await saver.setup()

    asyncio.run(setup())
    return postgres_url


@pytest.fixture(scope="module")
def redis_url() -> str:
    return service_url("MCPBRIDGE_TEST_REDIS_URL", "Redis (`redis-server --port 6399 ...`)")


@pytest.fixture(scope="module")
def workers(checkpoints: str, counting_server: tuple[str, Counter[str]]) -> Iterator[dict[str, Worker]]:
    """Workers "a", "b" and "victim" (for SIGKILL), started together."""
    url, _ = counting_server
    started = {name: Worker(name, checkpoints, url) for name in ("a", "b", "victim")}
    try:
        yield started
    finally:
        for worker in started.values():
            worker.stop()
