"""Stopping a stdio server with everything it started.

Each server runs in a process group of its own (a new session, `start_new_session=True`), so
its helpers can be found after it is gone: a server that exits at once on stdin EOF never
signals them, and they would outlive the bridge, one more at every crash and reconnect.
POSIX: the whole group gets SIGTERM (and SIGCONT, so a stopped member can act on it), then
SIGKILL after a grace period. Windows: the mcp SDK puts the server in a job object that kills
every member when it is closed. A helper that leaves the group on purpose (a daemon that calls
`setsid`) escapes on POSIX, as it would any process manager.

The sequence and its timeouts are the mcp SDK's (`mcp.client.stdio`), written here with its
public names; the pipe helpers below are the few lines its private ones hold.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import anyio
from anyio.abc import AsyncResource
from mcp.client.stdio import FORCE_KILL_TIMEOUT, PROCESS_TERMINATION_TIMEOUT
from mcp.os.win32.utilities import ServerProcess, close_process_job, terminate_windows_process_tree

from mcpbridge._compat import close_subprocess_transport

logger = logging.getLogger(__name__)

_GROUP_POLL = 0.02
_EXIT_POLL = 0.01
_KILL_REAP = 2.0  # after SIGKILL, time for the event loop to see the exit (the SDK's)
_PROC = Path("/proc")


async def stop_server(process: ServerProcess, *, graceful: bool) -> None:
    """The SDK's shutdown (close stdin, let the server exit, end what is left), except that
    the whole group always ends, also when the server exited by itself. `graceful=False`
    skips the wait for an exit on stdin EOF (the server stopped reading its stdin)."""
    assert process.stdin, "the server process is spawned with pipes"
    assert process.stdout, "the server process is spawned with pipes"
    await _close_pipe(process.stdin)
    if graceful:
        await wait_for_exit(process, PROCESS_TERMINATION_TIMEOUT)
    if sys.platform == "win32":  # pragma: no cover - the job object ends the members
        if process.returncode is None:
            await terminate_windows_process_tree(process)
    else:
        await end_group(process.pid, FORCE_KILL_TIMEOUT)
    if not await wait_for_exit(process, _KILL_REAP):
        logger.warning("MCP server process %d is still alive after SIGKILL; abandoning it", process.pid)
    close_process_job(process)
    await _close_pipe(process.stdout)
    close_subprocess_transport(process)


async def wait_for_exit(process: ServerProcess, seconds: float) -> bool:
    """Whether the process exited within `seconds`. Polls `returncode`: asyncio's
    `process.wait()` also waits for the pipes' EOF, which a child holding them never sends."""
    return await _polled(lambda: process.returncode is not None, seconds, _EXIT_POLL)


async def _polled(done: Callable[[], bool], seconds: float, every: float) -> bool:
    """Whether `done()` came true within `seconds`, asked every `every` seconds."""
    deadline = anyio.current_time() + seconds
    while not done():
        if anyio.current_time() >= deadline:
            return False
        await anyio.sleep(every)
    return True


async def drain(process: ServerProcess) -> None:
    """Reads and drops the server's remaining stdout until the pipe ends, so a server flushing
    its output is not blocked on a full pipe when it should exit (shielded)."""
    assert process.stdout
    with (
        anyio.CancelScope(shield=True),
        suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError),
    ):
        while True:
            await process.stdout.receive()


async def _close_pipe(stream: AsyncResource) -> None:
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await stream.aclose()


async def end_group(pgid: int, grace: float) -> None:
    """SIGTERM and SIGCONT to every process of group `pgid`, SIGKILL to those still running
    after `grace` seconds. The group leader's pid is the group id (never `getpgid`: it fails
    once the leader is reaped, with members left)."""
    if not _signal(pgid, signal.SIGTERM):
        return
    _signal(pgid, signal.SIGCONT)
    # no event says that processes we did not start have ended: poll
    if not await _polled(lambda: not _group_runs(pgid), grace, _GROUP_POLL):
        _signal(pgid, signal.SIGKILL)


def _signal(pgid: int, number: int) -> bool:
    """Signal the group; False once it is gone (ESRCH). EPERM (a member of another user)
    does not prove it is gone."""
    try:
        os.killpg(pgid, number)
    except ProcessLookupError:
        return False
    except PermissionError:
        logger.debug("no permission to signal some of process group %d", pgid)
    return True


def _group_runs(pgid: int) -> bool:
    """Whether a member of the group still runs. Where an orphan's reaper does not reap
    (a container's PID 1 often), ended members stay zombies that signal 0 still finds; on
    Linux /proc tells them apart, elsewhere signal 0 decides."""
    if not _signal(pgid, 0):
        return False
    if not _PROC.is_dir():
        return True
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        with suppress(OSError, IndexError, ValueError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                return True
    return False
