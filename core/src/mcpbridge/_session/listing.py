"""What a server says of itself: who it is when its session opens (`ServerInfo`), and the
tools it listed, held between listings: until `tools/list_changed` or a `refresh`, and, when a
2026-07-28 server says how long its `tools/list` answer stays fresh (`ttlMs`), no longer than
that.

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
that never thought about caching. A malformed hint (`"ttlMs": "soon"`) is no hint either: it
fails the SDK's check of the whole answer, so that page is read again without it.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Final

from mcp import Client, MCPError
from mcp.client.caching import CacheConfig, CacheEntry, CacheKey, InMemoryResponseCacheStore
from mcp.client.session import ClientSession
from mcp.types import ListToolsRequest, ListToolsResult, PaginatedRequestParams, Tool
from mcp_types.methods import validate_server_result
from pydantic import ValidationError

from mcpbridge._compat import absorb_tool_listing, leave_output_checks_to_the_bridge, send_raw_request

TOOLS_LIST: Final = "tools/list"
MAX_TOOL_PAGES: Final = 1000
_NO_HINT: Final = {"ttlMs": 0, "cacheScope": "private"}
"""What a 2026-07-28 server that sets no freshness hint sends."""
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


class Listing:
    """One connection's listed tools, and until when they are fresh."""

    def __init__(self) -> None:
        self.tools: list[Tool] = []
        self._until: float | None = None
        self.client: Client | None = None
        """The connection's current session, which `relist` lists through."""
        self._store = HintStore()

    def new_cache(self) -> CacheConfig:
        """The cache of the next session's `Client`: a store of its own, alone in its partition,
        for a server known by no other client (a random `target_id`: entries never cross sessions)."""
        self._store = HintStore()
        return CacheConfig(
            store=self._store, partition="session", target_id=f"mcpbridge-{uuid.uuid4().hex}", clock=_CLOCK
        )

    @property
    def expired(self) -> bool:
        """The server's `ttlMs` for the held listing has run out."""
        return self._until is not None and _CLOCK() >= self._until

    async def relist(self) -> None:
        """List every page again. The first page goes through the SDK's response cache, which
        always asks (`refresh`) and records the page's hints; continuation pages skip that
        cache, so the first page's hint governs the whole listing, held as one: a fresh first
        page served with later pages listed again (or the reverse) would mix two versions of a
        listing that changed in between."""
        client, store = self.client, self._store
        assert client is not None, "a session is open"
        store.tools_until = None  # a page read without its hints writes no entry
        tools = await _every_page(client)
        leave_output_checks_to_the_bridge(client.session)  # with jsonschema's `re`, a server could stall the loop
        self._until = store.tools_until
        self.tools = tools


async def _every_page(client: Client) -> list[Tool]:
    """Every page of `tools/list`; a server whose pages never end is an error, not a hang."""
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await _page(client, cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools
    raise MCPError(code=-32603, message=f"tools/list returned more than {MAX_TOOL_PAGES} pages; is its cursor stuck?")


async def _page(client: Client, cursor: str | None) -> ListToolsResult:
    try:
        return await client.list_tools(cursor=cursor, cache_mode="refresh")
    except ValidationError as exc:
        if not all(error["loc"][:1] and error["loc"][0] in _NO_HINT for error in exc.errors()):
            raise
        return await _without_hints(client.session, cursor)


async def _without_hints(session: ClientSession, cursor: str | None) -> ListToolsResult:
    """The page of `cursor` again, its malformed freshness hints read as none: a server's bad
    hint must not make its tools unusable; the rest of the answer is checked as the SDK checks
    it (against the negotiated version's result type)."""
    request = ListToolsRequest(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
    raw = await send_raw_request(session, request.model_dump(by_alias=True, mode="json", exclude_none=True), {})
    raw = {**raw, **_NO_HINT}
    if (version := session.protocol_version) is not None:  # an open session's
        validate_server_result(TOOLS_LIST, version, raw)
    page = ListToolsResult.model_validate(raw, by_name=False)
    return absorb_tool_listing(session, page, complete=cursor is None and page.next_cursor is None)


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What a server says about itself when the session opens (initialize / discover)."""

    server_name: str
    """The configured name of the server."""
    name: str | None
    version: str | None
    title: str | None
    instructions: str | None
    """How to use the server, meant for a model's system prompt; None when it gave none."""
    protocol_version: str | None


def server_info(server_name: str, session: ClientSession) -> ServerInfo:
    """What `session`'s server said about itself when it opened (initialize / discover)."""
    found = session.server_info
    name, version, title = (found.name, found.version, found.title) if found else (None, None, None)
    return ServerInfo(server_name, name, version, title, session.instructions, session.protocol_version)
