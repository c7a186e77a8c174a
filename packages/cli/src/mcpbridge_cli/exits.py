"""How a command ends when told to stop: Ctrl-C (SIGINT) or SIGTERM cancels the coroutine it
runs through `run`, so its sessions close and its stdio servers end with it, then prints one
line and exits with 128 + the signal's number (130, 143). From the first signal on nothing
else is logged: what the cancelled tasks would say on the way out is noise to someone who
asked to stop. A second signal stops at once (a command run by `asyncio.run` directly, with
no `run`, stops at the first, and `asyncio.run` still cancels its tasks on the way out)."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")

_STOPS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []
_running: list[asyncio.Task[Any]] = []
"""The coroutine `run` is running, while it runs: the one a signal cancels."""


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, ended by SIGINT or SIGTERM through cancellation (see the module)."""
    import asyncio  # not for `mcpbridge --help`

    async def watched() -> T:
        task = asyncio.current_task()
        assert task is not None
        _running.append(task)
        try:
            return await main
        finally:
            _running.remove(task)

    try:
        return asyncio.run(watched())
    except asyncio.CancelledError:
        if _received:
            raise KeyboardInterrupt from None
        raise


def run_command(command: Callable[[], int | None], prog: str = "mcpbridge") -> int:
    """The exit status of `command()`, one line on stderr if a signal stopped it."""
    _received.clear()
    previous = {number: signal.getsignal(number) for number in _STOPS}
    watching = threading.current_thread() is threading.main_thread()
    if watching:
        for number in _STOPS:
            if previous[number] is not signal.SIG_IGN:  # nohup, a background job: stays ignored
                signal.signal(number, _stop)
    interrupted = False
    try:
        status = int(command() or 0)
    except KeyboardInterrupt:  # a signal, or Ctrl-C in code that runs no event loop
        interrupted = True
    finally:
        if watching:
            for number, handler in previous.items():
                if handler is not None:  # None: set outside Python, left as it is
                    signal.signal(number, handler)
    if not (interrupted or _received):
        return status
    stopped_by = _received[0] if _received else signal.SIGINT
    print(f"{prog}: {'terminated' if stopped_by == signal.SIGTERM else 'interrupted'}", file=sys.stderr, flush=True)
    return 128 + stopped_by


def _stop(number: int, frame: FrameType | None) -> None:
    _received.append(number)
    logging.disable(logging.CRITICAL)
    if len(_received) == 1 and _running and not _running[-1].done():
        task = _running[-1]
        task.get_loop().call_soon_threadsafe(task.cancel)
        return
    raise KeyboardInterrupt
