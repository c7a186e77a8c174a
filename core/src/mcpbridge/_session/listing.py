"""The tools a server listed, held between listings: until `tools/list_changed` or a
`refresh`, and, when a 2026-07-28 server says how long its `tools/list` answer stays fresh
(`ttlMs`), no longer than that.

The SDK reads the hints: each session's `Client` gets a response cache whose store
(`HintStore`) is the SDK's in-memory one, per session, so nothing in it is shared between
servers or principals (`cacheScope` only matters for a store shared between principals,
and the SDK's `share_public=False` keeps even `"public"` entries in their own partition).
The SDK resolves the hints into the `tools/list` entry it writes (modern sessions only,
`ttlMs` clamped to `MAX_TTL_MS`, a negative one floored to 0) and evicts it on
`tools/list_changed`; the store keeps when that entry goes stale, and the listing is held
until then. `ttlMs: 0` is what every 2026-07-28 server sends when it sets no hint (the field
is required and 0 is the SDK's default), so, as no hint, it leaves the listing held until
the server announces a change: asking on every listing would be the price of every server
that never thought about caching.
"""

from __future__ import annotations

import time
import uuid
from typing import Final

from mcp import Client, MCPError
from mcp.client.caching import CacheConfig, CacheEntry, CacheKey, InMemoryResponseCacheStore
from mcp.client.session import ClientSession
from mcp.types import ListToolsResult, PaginatedRequestParams, Tool

TOOLS_LIST: Final = "tools/list"
MAX_TOOL_PAGES: Final = 1000
_CLOCK = time.time
"""The SDK's default cache clock (epoch seconds), which its entries' `expires_at` is in."""


class HintStore(InMemoryResponseCacheStore):
    """A session's response cache store that also keeps when the SDK's `tools/list` entry
    goes stale (`None`: there is none, as the answer carried no freshness hint)."""

    def __init__(self) -> None:
        super().__init__()
        self.tools_until: float | None = None

    async def set(self, key: CacheKey, entry: CacheEntry) -> None:
        await super().set(key, entry)
        if key.method == TOOLS_LIST:
            self.tools_until = entry.expires_at

    async def delete(self, key: CacheKey) -> None:
        await super().delete(key)
        if key.method == TOOLS_LIST:
            self.tools_until = None

    async def clear(self) -> None:
        await super().clear()
        self.tools_until = None


def cache_config(store: HintStore) -> CacheConfig:
    """The `Client`'s cache: `store`, alone in its partition, for a server known by no other
    client (a random `target_id`: entries never cross sessions)."""
    return CacheConfig(store=store, partition="session", target_id=f"mcpbridge-{uuid.uuid4().hex}", clock=_CLOCK)


class Listing:
    """One connection's listed tools, and until when they are fresh."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []
        self._until: float | None = None
        self._source: tuple[ClientSession, Client, HintStore] | None = None

    def opened(self, client: Client, store: HintStore) -> None:
        """List through `client` (and its cache `store`) from now on."""
        self._source = (client.session, client, store)

    @property
    def expired(self) -> bool:
        """The server's `ttlMs` for the held listing has run out."""
        return self._until is not None and _CLOCK() >= self._until

    async def relist(self, session: ClientSession) -> None:
        """List every page again on `session`. The first page goes through the SDK's response
        cache, which always asks (`refresh`) and records the page's hints; continuation pages
        skip that cache, so the first page's hint governs the whole listing, held as one:
        a fresh first page served with later pages listed again (or the reverse) would mix
        two versions of a listing that changed in between."""
        source = self._source
        client, store = (source[1], source[2]) if source is not None and source[0] is session else (None, None)
        tools = await _every_page(session, client)
        self._until = store.tools_until if store is not None else None
        self.tools = _kept(self.tools, tools)


async def _every_page(session: ClientSession, client: Client | None) -> list[Tool]:
    """Every page of `tools/list`; a server whose pages never end is an error, not a hang."""
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page: ListToolsResult
        if client is not None:
            page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        else:
            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools
    raise MCPError(code=-32603, message=f"tools/list returned more than {MAX_TOOL_PAGES} pages; is its cursor stuck?")


def _kept(held: list[Tool], listed: list[Tool]) -> list[Tool]:
    """`listed`, each unchanged tool replaced by its `held` object, so that whoever keeps
    something per definition (the bridge's tools and their chains) finds it unchanged at
    once (`is`) rather than comparing every schema on every listing."""
    if not held:
        return listed
    by_name = {tool.name: tool for tool in held}
    return [old if (old := by_name.get(tool.name)) is not None and old == tool else tool for tool in listed]
