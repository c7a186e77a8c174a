"""An event loop in a daemon thread, for callers without one (sync `invoke`, the CLI)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """Owns one event loop running in its own thread until `stop()`."""

    def __init__(self, name: str = "mcpbridge-loop") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)


def run_on(loop: asyncio.AbstractEventLoop | None, coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` on `loop` (in the caller's context) and block until it is done."""
    if loop is None or loop.is_closed():
        coro.close()
        raise RuntimeError("the MCPBridge is not open: use `async with MCPBridge(...)` or `with MCPBridge(...)` first")
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
