"""Worker processes for the resume-anywhere tests: `python -m tests.workers.worker`, one JSON
command per line in, one JSON answer out (the fixtures are in tests/workers/conftest.py)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
from typing import Any

from tests.helpers import ROOT

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
