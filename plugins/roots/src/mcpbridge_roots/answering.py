"""The roots of one bridge's servers, and the two ways a server asks for them.

A legacy (2025-11-25) server asks with `roots/list` (the mcp Client's `list_roots_callback`)
and is told of changes with `notifications/roots/list_changed`. A modern (2026-07-28) server
asks within a tool call: a round of its `InputRequiredResult` holds `roots/list` requests,
which `RootsInterceptor` answers next to the server (no person is needed), also when the
round asks something else too (the toolkit's `RoundAnswerer`).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterable, Mapping
from typing import Any

from mcp.client.session import ClientRequestContext, ClientSession
from mcp.types import ListRootsResult, Root, RootsListChangedNotification, Tool

from mcpbridge import RoundAnswerer, ToolCallRequest
from mcpbridge_roots.settings import RootConfig

MAX_REQUESTS = 8
"""Roots requests answered for one call before it fails (a server asking in a loop)."""


class ServerRoots:
    """The current roots of one server: what `roots/list` answers, and the legacy session
    that asked for them last, which hears when they change."""

    def __init__(self, roots: Iterable[RootConfig]) -> None:
        self.result = ListRootsResult(roots=[])
        self._listener: tuple[weakref.ref[ClientSession], asyncio.AbstractEventLoop] | None = None
        self.set(roots)

    def set(self, roots: Iterable[RootConfig]) -> None:
        self.result = ListRootsResult(roots=[Root.model_validate(r.model_dump(exclude_none=True)) for r in roots])

    async def list_roots(self, context: ClientRequestContext) -> ListRootsResult:
        """The mcp Client's `list_roots_callback`; only legacy servers call it."""
        self._listener = (weakref.ref(context.session), asyncio.get_running_loop())
        return self.result

    async def changed(self) -> None:
        """Tell the legacy server that read the roots that they changed. One that never read
        them (or whose session is gone) needs no word: it reads the current ones when it asks.
        The modern protocol has no such notification."""
        session, loop = (self._listener[0](), self._listener[1]) if self._listener else (None, None)
        if session is None or loop is None or loop.is_closed():
            return
        if loop is asyncio.get_running_loop():
            await session.send_notification(RootsListChangedNotification())
        else:  # a sync bridge: its sessions live on the bridge's own loop thread
            sent = asyncio.run_coroutine_threadsafe(session.send_notification(RootsListChangedNotification()), loop)
            await asyncio.wrap_future(sent)


class RootsInterceptor(RoundAnswerer):
    """Answers the roots requests of a modern server's rounds, for the servers with roots."""

    def __init__(self, roots: Mapping[str, ServerRoots]) -> None:
        super().__init__("roots", self._answer, max_requests=MAX_REQUESTS)
        self.roots = roots

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        """Only the tools of servers told the client has roots: other servers' rounds go up as they are."""
        return server_name in self.roots

    async def _answer(self, request: ToolCallRequest, asked: dict[str, Any]) -> dict[str, ListRootsResult]:
        result = self.roots[request.server_name].result
        return dict.fromkeys(asked, result)
