"""The tools one bridge offers a model, kept between model calls: listed again only when a
server announced a change or the bridge listed since, in a fixed order (server, then MCP
name), each tool converted once per definition so that an unchanged tool reaches the model
byte-identical; within a token budget, the always-on tools, `find_tools` and what it found."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from mcpbridge import MCPBridge, MCPBridgeError, MCPTool, ToolSelector, describe, selected
from mcpbridge_catalogue import Listings, fixes
from mcpbridge_catalogue.fixes import Provider
from mcpbridge_catalogue.search import Index
from mcpbridge_catalogue.settings import CatalogueSettings

logger = logging.getLogger("mcpbridge.catalogue")

Shown = BaseTool | dict[str, Any]
"""A tool as the model is given it: the tool object, or its schema fitted to a provider."""
FIND_TOOLS: Final = "find_tools"
RECHECK_S: Final = 1.0
"""At most this long between two listings through the bridge (a server's `ttlMs` running out
is seen by listing: it has no notification)."""
MAX_GONE: Final = 1000
"""Removed tools remembered, to answer a call to one with why it is no longer offered."""
MAX_PICKS: Final = 256
"""Budgeted selections kept per listing (one per distinct set of found tools)."""
MAX_AUDIENCES: Final = 64
"""Catalogues of people's listings kept (the least recently used forgotten first)."""
PACE: Final = 100
"""Tools converted between two yields to the event loop, when a listing changed."""


def tokens(shown: dict[str, Any]) -> int:
    """The one estimate for every provider: the tool's compact JSON (OpenAI function form)
    in characters, divided by 4, rounded up."""
    return math.ceil(len(json.dumps(shown, separators=(",", ":"), ensure_ascii=False, default=str)) / 4)


async def _find_tools(query: str) -> str:
    """Run by the catalogue's middleware, never through this function."""
    raise NotImplementedError


FIND_TOOL = StructuredTool.from_function(
    coroutine=_find_tools,
    name=FIND_TOOLS,
    description=(
        "Search the tools that are not shown to you yet by what you need done (words from their "
        "names and descriptions). The tools found can be called from your next step on."
    ),
)


def fitter(provider: Provider | None) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """`fixes.fitted_schema` for `provider` (None: no provider set)."""
    if provider is None:
        return None
    return lambda schema: fixes.fitted_schema(schema, provider)


def shown(tool: BaseTool, fit: Callable[[dict[str, Any]], dict[str, Any]] | None) -> tuple[Shown, int]:
    """What the model is given for `tool`, and its estimated tokens."""
    as_openai = convert_to_openai_tool(tool)
    if fit is None:
        return tool, tokens(as_openai)
    function = as_openai["function"]
    try:
        parameters = fit(function.get("parameters", {}))
    except Exception as exc:  # a schema the fixes did not foresee must not stop every model call
        logger.warning("mcpbridge: tool %r is given with its schema as listed: fitting it failed: %s", tool.name, exc)
        parameters = function.get("parameters", {})
    fitted = {**as_openai, "function": {**function, "parameters": parameters}}
    return fitted, tokens(fitted)


@dataclass(frozen=True, slots=True)
class Entry:
    tool: MCPTool
    name: str
    """Its display name when it was converted (a rename converts it again)."""
    shown: Shown
    tokens: int

    def shows(self, tool: MCPTool) -> bool:
        """Whether this entry is `tool` as it is now (the same object, not renamed since)."""
        return self.tool is tool and self.name == tool.name


class Listing:
    """One listing of the bridge's tools, in the catalogue's order, as the model is given them."""

    def __init__(self, entries: list[Entry], always_on: Sequence[ToolSelector], gone: Mapping[str, MCPTool]) -> None:
        self.entries = entries
        self._gone = gone
        """The tools its catalogue offered before and no longer does (shared with the catalogue)."""
        self.by_name = {entry.name: entry for entry in entries}
        self.shown: list[Shown] = [entry.shown for entry in entries]
        self.tokens = sum(entry.tokens for entry in entries)
        # A server's own `find_tools` is neither always on nor found: the built-in takes its name.
        chosen = [any(selected(always_on, *_key(entry.tool))) and entry.name != FIND_TOOLS for entry in entries]
        self.always = [entry for entry, always in zip(entries, chosen, strict=True) if always]
        self.rest = [entry for entry, always in zip(entries, chosen, strict=True) if not always]
        self.picks: dict[tuple[str, ...], list[Shown]] = {}
        self._index: Index | None = None

    def search(self, query: str, limit: int) -> list[MCPTool]:
        """The tools not always on that best match `query` (BM25 over names, titles and descriptions)."""
        if self._index is None:
            self._index = Index([_text(entry.tool) for entry in self.rest])
        return [self.rest[position].tool for position in self._index.top(query, limit)]

    def withdrawn(self, name: str) -> str | None:
        """Why the tool once offered as `name` to the same audience no longer is (None: it never
        was, or still is): a person is never told of a tool only another person is offered."""
        if (tool := self._gone.get(name)) is None:
            return None
        return tool.binding.definition.withdrawn or "the server no longer lists it"


class Catalogue:
    """The tools `bridge` offers (of `servers`, or all), kept for the model calls of one agent."""

    def __init__(
        self, bridge: MCPBridge, settings: CatalogueSettings, servers: Sequence[str] | None, listings: Listings
    ) -> None:
        self._bridge = bridge
        self.settings = settings
        self._servers = list(servers) if servers is not None else None
        self._listings = listings
        self._fit = fitter(settings.provider)
        self._find = shown(FIND_TOOL, self._fit)
        self._entries: dict[int, Entry] = {}
        self._gone: dict[str, MCPTool] = {}
        self._announced: list[Callable[[], bool]] = []
        self._seen = -1
        self._due = self._retry_at = 0.0
        self._started = self._installed = 0
        """Listings begun and the latest installed: one begun earlier never replaces a later one."""
        self.listing = Listing([], (), self._gone)
        self._audiences: dict[tuple[str, ...], Catalogue] = {}
        """The catalogues of the listings made on people's sessions (`_audience`), the latest last."""

    def _fresh(self) -> bool:
        """Nothing listed since, no change announced, and the last listing is recent (or the
        last try failed a moment ago): a few reads, as this runs before every model call."""
        now = time.monotonic()
        return now < self._retry_at or (
            self._seen == self._listings.count
            and now < self._due
            and not any(announced() for announced in self._announced)
        )

    @property
    def per_run(self) -> bool:
        """Whether each run is listed for (`bridge.lists_per_run`)."""
        return self._bridge.lists_per_run

    async def current(self, runtime: Any = None) -> Listing:
        """The bridge's tools as of now for the run of `runtime` (listed again through the
        bridge when they may have changed, and for every run when the bridge lists per run)."""
        if self.per_run:
            try:
                tools = await self._bridge.list_tools(servers=self._servers, runtime=runtime)
            except MCPBridgeError as exc:
                return self._unlisted(exc)
            return await self._audience(tools).absorbed(tools)
        if not self._fresh():  # two calls may list at once: both get the bridge's one listing
            try:
                tools = await self._bridge.list_tools(servers=self._servers)
            except MCPBridgeError as exc:
                return self._unlisted(exc)
            return await self.absorbed(tools)
        return self.listing

    def current_sync(self, runtime: Any = None) -> Listing:
        """`current()` for a sync agent (the bridge opened with `with MCPBridge(...)`)."""
        if self.per_run or not self._fresh():
            try:
                tools = self._bridge.list_tools_sync(servers=self._servers, runtime=runtime)
            except MCPBridgeError as exc:
                return self._unlisted(exc)
            view = self._audience(tools) if self.per_run else self
            for _ in view._absorb(tools):
                pass
            return view.listing
        return self.listing

    async def absorbed(self, tools: Sequence[MCPTool]) -> Listing:
        """The listing of `tools`, the new ones converted."""
        for _ in self._absorb(tools):
            await asyncio.sleep(0)  # thousands of new tools: let the loop breathe
        return self.listing

    def _audience(self, tools: Sequence[MCPTool]) -> Catalogue:
        """The catalogue of the tools of one audience: of the sessions the listing was made on
        (a person's credential), so that one person's tools never reach another's model."""
        key = tuple(sorted({tool.binding.audience or "" for tool in tools}))
        if key == ("",) or not key:
            return self
        if (view := self._audiences.pop(key, None)) is None:
            view = Catalogue(self._bridge, self.settings, self._servers, self._listings)
        self._audiences[key] = view  # the most recent last
        while len(self._audiences) > MAX_AUDIENCES:
            self._audiences.pop(next(iter(self._audiences)))
        return view

    def _unlisted(self, exc: MCPBridgeError) -> Listing:
        """The last listing, when listing again failed (a server went away): a model call goes
        on with it (a call to that server's tools fails as such calls do), and the bridge is
        asked again after `RECHECK_S`. With no listing yet, the error is the model call's."""
        if not self.listing.entries:
            raise exc
        logger.warning("mcpbridge: the tool catalogue keeps its last listing for now: %s", describe(exc))
        self._retry_at = time.monotonic() + RECHECK_S
        return self.listing

    def tool(self, listing: Listing, name: str) -> MCPTool | None:
        """The tool `listing` offers as `name`, if any."""
        entry = listing.by_name.get(name)
        return entry.tool if entry is not None else None

    def offered(self, listing: Listing, found: Sequence[str]) -> list[Shown]:
        """What the model is given: every tool within the budget, else the always-on tools,
        `find_tools` and the found tools that fit (the latest found first)."""
        if not self.over_budget(listing):
            return listing.shown
        key = tuple(found)
        if (picked := listing.picks.get(key)) is None:
            if len(listing.picks) >= MAX_PICKS:
                listing.picks.clear()
            picked = listing.picks[key] = self._pick(listing, key, self.settings.max_catalog_tokens)
        return picked

    def over_budget(self, listing: Listing) -> bool:
        """Whether `listing` takes more than the budget (then a server's own `find_tools` is hidden)."""
        budget = self.settings.max_catalog_tokens
        return bool(budget) and listing.tokens > budget

    def _pick(self, listing: Listing, found: tuple[str, ...], budget: int) -> list[Shown]:
        chosen = {id(entry) for entry in listing.always}
        spent = sum(entry.tokens for entry in listing.always) + self._find[1]
        if spent > budget:
            logger.warning(
                "mcpbridge: the always-on tools and find_tools take %d tokens, over max_catalog_tokens=%d; "
                "they are given anyway: select fewer tools in always_on or raise the budget",
                spent,
                budget,
            )
        for name in reversed(found):
            entry = listing.by_name.get(name) if name != FIND_TOOLS else None
            if entry is not None and id(entry) not in chosen and spent + entry.tokens <= budget:
                chosen.add(id(entry))
                spent += entry.tokens
        return [entry.shown for entry in listing.entries if id(entry) in chosen] + [self._find[0]]

    def _absorb(self, tools: Sequence[MCPTool]) -> Iterator[None]:
        """Make `tools` the listing, converting the new ones; pauses (yields) every `PACE` conversions."""
        self._started = ticket = self._started + 1
        seen, due = self._listings.count, time.monotonic() + RECHECK_S
        ordered = sorted(tools, key=_key)
        held = self.listing.entries
        if len(ordered) == len(held) and all(entry.shows(tool) for tool, entry in zip(ordered, held, strict=True)):
            if ticket > self._installed:  # unchanged: the listing, its search index and selections kept
                self._installed, self._seen, self._due = ticket, seen, due
            return
        entries: list[Entry] = []
        kept: dict[int, Entry] = {}
        converted = 0
        for tool in ordered:
            entry = self._entries.get(id(tool))
            if entry is None or not entry.shows(tool):
                entry = Entry(tool, tool.name, *shown(tool, self._fit))
                converted += 1
                if converted % PACE == 0:
                    yield
            kept[id(tool)] = entry
            entries.append(entry)
        if ticket < self._installed:  # a listing begun later was installed meanwhile
            return
        listing = Listing(entries, self.settings.always_on, self._gone)
        for name, entry in self.listing.by_name.items():
            if name not in listing.by_name:
                self._gone[name] = entry.tool
        for name in listing.by_name:
            self._gone.pop(name, None)
        for name in list(self._gone)[: max(0, len(self._gone) - MAX_GONE)]:
            self._gone.pop(name, None)
        relistings = {entry.tool.binding.server_name: entry.tool.binding.relisting for entry in entries}
        self._announced = [relisting.announced for relisting in relistings.values()]
        self._entries, self.listing, self._installed, self._seen, self._due = kept, listing, ticket, seen, due


def _key(tool: MCPTool) -> tuple[str, str]:
    binding = tool.binding
    return binding.server_name, binding.tool.name


def _text(tool: MCPTool) -> str:
    mcp_tool = tool.binding.tool
    return " ".join(filter(None, (tool.name, mcp_tool.name, mcp_tool.title, mcp_tool.description)))
