"""At most one execution of a resumed call, however many workers resume it.

LangGraph lets any process resume a paused thread from its checkpoint, and nothing stops
two processes from resuming the same interrupt at once: both re-run the tool node. So a
call that resumed from an interrupt in this run claims its execution once, right before
its request goes to the server, keyed by the thread, the task's checkpoint namespace, the
tool call and how many answers the task has; the first owner wins, the others get a
`ResumeConflictError` and send nothing. Calls that never paused claim nothing.

`pause(request=...)` marks the call (`request.resumed`) when it returns an answer; the
claiming layer, the core's own innermost layer (`"claiming"` in `bridge.chain`), reads the
mark. Both live in the core, with an in-process store (`LocalClaims`), because the
guarantee must hold without any claims plugin: two resumes of one interrupt in one process
(a double-clicked "approve") must not run an approved call twice. Plugins only provide a
store shared by many processes (`mcpbridge_claim_store`).

A claim store is anything with `claim(key, owner) -> holder` (the owner now holding the
key: `owner` itself when the claim is won or was already this owner's), `release(key,
owner)` and `aclose()`. Claims are kept until the store's TTL ends them, so a worker killed
after claiming leaves the call claimed: a later resume gets the clear error, never a second
execution. The one exception: when the server could not even be reached
(`ServerConnectionError(sent=False)`) before anything of the call was sent, the claim is
released, so that the same resume can be sent again once the server is back.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from mcpbridge._base.errors import ClaimStoreError, ResumeConflictError, describe, redact_text

if TYPE_CHECKING:
    from mcpbridge._base.pipeline import Resumed, ToolCallHandler, ToolCallInterceptor, ToolCallRequest

logger = logging.getLogger(__name__)

DEFAULT_CLAIM_TTL = 7 * 24 * 3600.0
"""How long a claim is kept by default (seconds): longer than any resume is retried."""

DEFAULT_MAX_CLAIMS = 100_000
"""How many unexpired claims a `LocalClaims` holds at most (about 40 MB at the cap)."""


@runtime_checkable
class ClaimStore(Protocol):
    """Where workers claim resumed calls; shared by every worker that resumes the same threads."""

    async def claim(self, key: str, owner: str) -> str:
        """Claim `key` for `owner` unless another owner holds it (and its claim has not
        expired); return the owner holding it now."""

    async def release(self, key: str, owner: str) -> None:
        """Drop `owner`'s claim of `key` (nothing when another owner holds it)."""

    async def aclose(self) -> None:
        """Release connections; the store stays usable (it reconnects when needed)."""


class LocalClaims:
    """Claims held in this process: enough for one worker process, or for tests.

    A claim costs O(1): claims sit in the order they expire (one TTL for all, a monotonic
    clock), so expired ones are dropped from the front as new ones come. At most
    `max_claims` unexpired claims are held (about 0.4 kB each): past that a new key is
    refused with a `ClaimStoreError`, so its resume sends nothing and can be resumed once
    claims expire. A live claim is never dropped to make room: that could run a call twice.
    """

    def __init__(self, ttl: float = DEFAULT_CLAIM_TTL, max_claims: int = DEFAULT_MAX_CLAIMS) -> None:
        if max_claims < 1:
            raise ValueError(f"max_claims must be at least 1, not {max_claims}")
        self.ttl, self.max_claims = ttl, max_claims
        self._held: OrderedDict[str, tuple[str, float]] = OrderedDict()  # key → (owner, expiry), soonest first
        self._lock = threading.Lock()  # bridges with loop threads of their own share it

    async def claim(self, key: str, owner: str) -> str:
        now = time.monotonic()
        with self._lock:
            while self._held and next(iter(self._held.values()))[1] <= now:  # expired: O(1) amortized
                self._held.popitem(last=False)
            held = self._held.get(key)
            if held is not None and held[0] != owner and held[1] > now:
                return held[0]
            if held is None and len(self._held) >= self.max_claims:
                raise ClaimStoreError(
                    f"LocalClaims holds {len(self._held)} unexpired claims, its cap (max_claims); "
                    f"the oldest expires in {self._held[next(iter(self._held))][1] - now:.0f} s. Share claims "
                    "through a plugin that provides a shared claim store (`mcpbridge_claim_store`), or provide "
                    "LocalClaims(max_claims=..., ttl=...) from that hook"
                )
            self._held[key] = (owner, now + self.ttl)
            self._held.move_to_end(key)
        return owner

    async def release(self, key: str, owner: str) -> None:
        with self._lock:
            if self._held.get(key, ("", 0.0))[0] == owner:
                del self._held[key]

    async def aclose(self) -> None:
        """Nothing to release: the claims live as long as the process."""


LOCAL_CLAIMS = LocalClaims()
"""The process-wide store a bridge uses when no plugin provides one (`mcpbridge_claim_store`)."""


CLAIMING = "claiming"
"""The claiming layer's name in `bridge.chain` and `mcpbridge plugins`: the core's own layer,
innermost, next to the server (no plugin and no `[plugins] order` can move it)."""


def claiming(store: ClaimStore) -> ToolCallInterceptor:
    """The claiming layer: a call marked as resumed (`request.resumed`) claims its execution
    in `store` before it is sent; a call that never paused goes straight through."""
    from mcpbridge._base.tool_errors import ServerConnectionError  # a bridge's, not the plugin host's

    def claim(request: ToolCallRequest, handler: ToolCallHandler) -> Awaitable[Any]:
        """A call that never paused is the handler's own awaitable: no frame of this layer."""
        return handler(request) if not request.resumed.owner else claimed(request, handler)

    async def claimed(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        mark = request.resumed
        if not mark.won:
            await _claim(store, mark, request)
        try:
            return await handler(request)
        except ServerConnectionError as exc:
            if not exc.sent and not mark.sent:  # nothing reached the server: resume again later
                mark.won = False
                try:
                    await store.release(_key(mark, request), mark.owner)
                except Exception as failure:
                    logger.warning(
                        f"mcpbridge: could not release the claim of tool {request.name!r} on server "
                        f"{request.server_name!r} in thread {mark.thread_id!r} ({redact_text(describe(failure))}): "
                        "resuming it again is refused until the claim expires"
                    )
            raise
        finally:
            mark.sent = mark.sent or mark.won

    claim.__qualname__ = CLAIMING  # its name in the hook trace, as in `bridge.chain`
    return claim


def _key(mark: Resumed, request: ToolCallRequest) -> str:
    return "\x1f".join(
        ("mcpbridge-resume", mark.thread_id, mark.checkpoint_ns, request.tool_call_id or "", str(mark.answers))
    )


async def _claim(store: ClaimStore, mark: Resumed, request: ToolCallRequest) -> None:
    what = f"tool {request.name!r} on server {request.server_name!r} in thread {mark.thread_id!r}"
    try:
        holder = await store.claim(_key(mark, request), mark.owner)
    except Exception as exc:
        raise ClaimStoreError(
            f"the resumed call of {what} could not be claimed, so it was not sent: the claim store failed "
            f"({redact_text(describe(exc))}); resume again once the store is reachable"
        ) from exc
    if holder != mark.owner:
        raise ResumeConflictError(
            f"the resumed call of {what} was already resumed by another worker (claimed by {holder}); "
            "this resume ran nothing: that worker's run writes the result to the thread's state",
            server_name=request.server_name,
            name=request.name,
            thread_id=mark.thread_id,
            holder=holder,
        )
    mark.won = True
