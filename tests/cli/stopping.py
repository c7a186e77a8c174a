"""Running an `mcpbridge` command in a subprocess to stop it with a signal: its output read as
it comes, waits for what it prints (never for time to pass), and its child processes."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path

WAIT = 60.0
"""Seconds to wait for an event before failing (CI machines are busy)."""


class Running:
    """A command started in a session of its own (as a terminal's foreground job is), its
    stdout and stderr read together. With `terminal`, its stdin is a pseudo-terminal."""

    def __init__(self, *args: str, cwd: Path | str | None = None, terminal: bool = False) -> None:
        self._changed = threading.Condition()
        self.output = ""
        self.ended = False
        self.left: list[int] = []
        """The command's child processes still running after it exited (`stop`)."""
        stdin: int = subprocess.PIPE
        if terminal:
            self._terminal, stdin = pty.openpty()
        self.process = subprocess.Popen(
            args,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=_as_a_terminal_job,
        )
        if terminal:
            os.close(stdin)
        weakref.finalize(self, _end, self.process)  # a failed test leaves nothing running
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        stdout = self.process.stdout.fileno()
        for chunk in iter(lambda: os.read(stdout, 65536), b""):
            with self._changed:
                self.output += chunk.decode(errors="replace")
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def wait_for(self, text: str) -> str:
        """Wait until the command has printed `text`; all it printed so far."""
        with self._changed:
            if not self._changed.wait_for(lambda: text in self.output or self.ended, WAIT):
                raise AssertionError(f"{text!r} not printed within {WAIT} s; printed: {self.output!r}")
            assert text in self.output, f"the command ended without printing {text!r}: {self.output!r}"
            return self.output

    def stop(self, number: int) -> tuple[int, str]:
        """Send the signal; the exit status and what was printed after it."""
        with self._changed:
            before = len(self.output)
        children = child_processes(self.process.pid)
        self.process.send_signal(number)
        status = self.process.wait(WAIT)
        with self._changed:
            self._changed.wait_for(lambda: self.ended, WAIT)
            after = self.output[before:]
        self.left = [pid for pid in children if alive(pid)]
        return status, after


def _end(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def child_processes(pid: int) -> list[int]:
    """The processes whose parent is `pid` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Wait until `condition()` holds (checking every 50 ms), or fail after `WAIT` seconds."""
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {WAIT} s")
        time.sleep(0.05)


MCPBRIDGE = str(Path(sys.executable).parent / "mcpbridge")
SIGNALS = [signal.SIGINT, signal.SIGTERM]
"""Ctrl-C and SIGTERM: what a user and a process manager send."""
LINE = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


def _as_a_terminal_job() -> None:
    """SIGINT and SIGTERM at their defaults, as a terminal's foreground job has them: a test
    run started in the background (`cmd &` in a script, as CI may be) starts its children with
    SIGINT ignored, which the command rightly keeps ignoring."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
