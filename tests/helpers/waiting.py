"""Waiting for an event a test cannot be told about directly: poll a condition under one
overall deadline that a busy machine does not reach when the event comes, so the verdict
never depends on how fast the scheduler was."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable

PATIENCE = 30.0
"""Seconds an event may take on a loaded machine before the test calls it missing."""


async def until(check: Callable[[], bool | Awaitable[bool]], what: str, within: float = PATIENCE) -> None:
    """Return as soon as `check()` is true (it may be a coroutine function); fail saying
    `what` did not happen when it is still false after `within` seconds."""
    deadline = time.monotonic() + within
    while True:
        found = check()
        if inspect.isawaitable(found):
            found = await found
        if found:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {within:g} s")
        await asyncio.sleep(0.01)


def until_sync(check: Callable[[], bool], what: str, within: float = PATIENCE) -> None:
    """`until` for a thread without an event loop."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {within:g} s")
        time.sleep(0.01)
