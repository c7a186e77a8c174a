"""What the inspector's pages are sent: each change of a call as a delta — its fields when they
changed (`call`), each new update on its own (`update`) — so one change costs the same
whether the call has had ten updates or ten thousand. A page that connects late, or falls too
far behind, first gets a snapshot: every call with the updates it keeps."""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpbridge_events import AssembledToolCall

CHANGE_LOG_SIZE = 2000
"""Changes kept for pages that are behind; a page further behind gets a fresh snapshot."""

Change = tuple[str, str]
"""(SSE event name, JSON payload)."""


@dataclass
class _Shown:
    """What the pages know of one call."""

    fields: str = ""
    """The JSON of the call without its updates."""
    updates: deque[str] = field(default_factory=deque)
    """The `update` delta (JSON) of each update the call keeps, oldest first."""
    total: int = 0
    """Updates the call has had, kept or not."""

    def snapshot(self) -> dict[str, Any]:
        updates = [json.loads(delta)["update"] for delta in self.updates]
        return {**json.loads(self.fields), "updates": updates, "updatesDropped": self.total - len(updates)}


class CallBoard:
    """The calls as the pages know them and the latest changes, shared between the agent's
    thread (`publish`) and the pages' SSE threads (`since`)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._calls: dict[str, _Shown] = {}
        """call id → what pages know of it; dict order = order of first appearance."""
        self._log: deque[tuple[int, str, str]] = deque(maxlen=CHANGE_LOG_SIZE)
        """(version, event, payload) of the latest changes, oldest first."""
        self.version = 0
        self.closed = False

    def publish(self, call: AssembledToolCall) -> None:
        """Record what changed in `call` since it was last published (serialised now: the call
        keeps changing on the agent's thread)."""
        fields = json.dumps(call.to_js(with_updates=False), default=str)
        kept, total = call.updates, call.updates_dropped + len(call.updates)
        with self._changed:
            shown = self._calls.setdefault(call.call_id, _Shown())
            first = max(shown.total, total - len(kept))
            if first > shown.total or shown.updates.maxlen != kept.maxlen:  # missed some: start afresh
                shown.updates = deque(shown.updates if first == shown.total else (), maxlen=kept.maxlen)
            if fields != shown.fields:
                shown.fields = fields
                self._record("call", fields)
            limit = total if kept.maxlen is None else kept.maxlen
            for index in range(first, total):
                dropped = index + 1 - min(len(shown.updates) + 1, limit)
                update = kept[index - total]
                delta = json.dumps(
                    {"callId": call.call_id, "index": index, "dropped": dropped, "update": update}, default=str
                )
                shown.updates.append(delta)
                self._record("update", delta)
            shown.total = total
            self._changed.notify_all()

    def since(self, version: int, timeout: float) -> tuple[int, list[Change]]:
        """The changes after `version` and the version they bring the page to; a snapshot for
        a new page (`version` 0) or one the change log has left behind. Waits up to `timeout`
        for a change."""
        with self._changed:
            self._changed.wait_for(lambda: self.version > version or self.closed, timeout)
            if version == 0 or (self._log and self._log[0][0] > version + 1):
                return self.version, [("call", json.dumps(shown.snapshot())) for shown in self._calls.values()]
            changes: list[Change] = []
            for seen, event, payload in reversed(self._log):
                if seen <= version:
                    break
                changes.append((event, payload))
            return self.version, changes[::-1]

    def snapshot(self) -> list[dict[str, Any]]:
        """Every call with the updates it keeps, in order of appearance."""
        with self._changed:
            return [shown.snapshot() for shown in self._calls.values()]

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def _record(self, event: str, payload: str) -> None:
        self.version += 1
        self._log.append((self.version, event, payload))
