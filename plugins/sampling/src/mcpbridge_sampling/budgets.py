"""`max_requests` for legacy-protocol servers, which ask mid-call: their requests name no
tool call, so each one is charged to the oldest call in flight on that server that has
requests left. A server that asks when no call of it is in flight, or more often than its
calls together may, is refused, so it cannot spend the model's tokens at its own pace."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class _Left:
    """The requests one call may still make (compared by identity: two calls never collide)."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count


class CallBudgets:
    """The legacy requests left to each server's calls in flight (one bridge's)."""

    def __init__(self, per_call: int) -> None:
        self.per_call = per_call
        self._open: dict[str, list[_Left]] = {}
        self._lock = threading.Lock()  # a sync bridge's sessions run on a loop thread of their own

    @contextmanager
    def call(self, server: str) -> Iterator[None]:
        """Keep a budget for one call on `server` while it runs."""
        left = _Left(self.per_call)
        with self._lock:
            self._open.setdefault(server, []).append(left)
        try:
            yield
        finally:
            with self._lock:
                calls = self._open[server]
                calls.remove(left)
                if not calls:
                    del self._open[server]

    def charge(self, server: str) -> bool:
        """Take one request from the oldest call on `server` with some left; False when none has."""
        with self._lock:
            for left in self._open.get(server, ()):
                if left.count > 0:
                    left.count -= 1
                    return True
        return False
