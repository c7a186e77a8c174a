"""All event-loop hopping in one place.

A bridge's sessions belong to one event loop, its home: the loop that opened it with
`async with`, or a loop thread of its own for `with MCPBridge(...)` and sync `invoke`. Work
from any other loop or thread is sent home and awaited (or waited for) from there.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Coroutine, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

_CALLER: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "mcpbridge_caller_loop", default=None
)
"""The loop that awaits the work sent home (`HomeLoop.submit`), seen by that work."""


class HomeLoop:
    """The loop that owns a bridge's sessions, and the ways to run work on it."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        """The thread running a loop of our own (`start_thread`): then `_loop`, until `stop_thread`."""

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The home loop, or None when there is none (or it has closed)."""
        if self._loop is not None and self._loop.is_closed():
            self._loop = None  # the sessions ended with their event loop
        return self._loop

    def bind_here(self) -> None:
        """Make the running loop home, unless a live home exists."""
        if self.loop is None:
            self._loop = asyncio.get_running_loop()

    def start_thread(self) -> None:
        """Make a loop of our own, running in its own thread, home, unless a live home exists."""
        if self.loop is None:
            loop = self._loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=_serve, args=(loop,), name="mcpbridge-loop", daemon=True)
            self._thread.start()

    def stop_thread(self) -> None:
        if self._thread is not None and self._loop is not None:
            if self._loop.is_running():
                self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._thread = self._loop = None

    def submit(self, coro: Coroutine[Any, Any, T]) -> Awaitable[T]:
        """`coro` itself when the running loop is home (made home if there is none), else `coro`
        run on the home loop: awaiting it adds no frame to the call on the home loop."""
        caller = asyncio.get_running_loop()
        if (home := self.loop) is None:
            home = self._loop = caller
        if caller is home:
            return coro
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(_sent_from(caller, coro), home))

    def run_sync(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the home loop (in the caller's context) and block until it is done."""
        loop = self.loop
        if loop is None:
            coro.close()
            raise RuntimeError(
                "the MCPBridge is not open: use `async with MCPBridge(...)` or `with MCPBridge(...)` first"
            )
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            coro.close()
            raise RuntimeError(
                "a sync call (`invoke`) from the event loop that owns the bridge's sessions would "
                "deadlock: use `await tool.ainvoke(...)` there, or open the bridge with a plain "
                "`with MCPBridge(...)` so that it runs its own loop thread"
            )
        return asyncio.run_coroutine_threadsafe(coro, loop).result()


async def _sent_from(caller: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
    _CALLER.set(caller)
    return await coro


async def on_caller_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await `coro` on the loop of the code that called the bridge. A bridge opened with
    `with MCPBridge(...)` (as under `langgraph dev`) runs every tool call on its own loop
    thread, while what the caller hands it may belong to the caller's loop: a LangGraph store
    (`runtime.store`), a database pool. An interceptor awaits calls to such objects through
    this; where the call was not sent to another loop, `coro` runs here."""
    caller = _CALLER.get()
    if caller is None or caller is asyncio.get_running_loop() or caller.is_closed():
        return await coro
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, caller))


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


TURN_S = 0.005
"""The longest `paced` runs before giving the event loop a turn."""


async def paced(items: Iterable[T]) -> AsyncIterator[T]:
    """`items`, giving the event loop a turn after each `TURN_S` spent between them: work
    per item over thousands of items (building 20,000 tools) holds no other caller for long."""
    turn = time.perf_counter() + TURN_S
    for item in items:
        yield item
        if time.perf_counter() > turn:
            await asyncio.sleep(0)
            turn = time.perf_counter() + TURN_S
