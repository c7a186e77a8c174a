"""Which tool the model sees under each display name (`display_names`), once per listing.

Names are given by `DisplayNames`, a pure function of the configuration: with
`tool_name_prefix` no two servers' tools get the same name unless a server crafts one. When
two tools still share a display name, the one whose server offered it first in the bridge's
life keeps it; one shown under its own name beats one given a hashed name; the other is left
out, with a warning naming both servers, and every other tool keeps working. Only two servers
offering one plain name for the first time in the same listing, without `tool_name_prefix`,
are a configuration problem (`ConfigError`); with it, both tools are left out.

A tool whose name shows nothing is left out; names made valid for the model, and names that
differ only by invisible or look-alike characters, are reported once.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Sequence

from mcpbridge._base.errors import ConfigError
from mcpbridge._facade.display_names import DisplayNames, look_alike_key, plain
from mcpbridge._session.loops import paced
from mcpbridge._tools.patterns import shown
from mcpbridge._tools.tool import MCPTool

logger = logging.getLogger(__name__)

_REMEMBERED = 10_000
"""Reports, and first sights, remembered: past it a report is forgotten (a server renaming
its tools at every listing gets one again rather than growing the bridge's memory), and so
is the first sight of a name its server, listed since, no longer offers."""
_EXAMPLES = 3


class _Once:
    """Keys already reported, bounded."""

    def __init__(self) -> None:
        self._seen: set[Hashable] = set()

    def first(self, key: Hashable) -> bool:
        if key in self._seen:
            return False
        if len(self._seen) >= _REMEMBERED:
            self._seen.clear()
        self._seen.add(key)
        return True


class ToolNames:
    """One bridge's display names and its record of who offered each one first."""

    def __init__(self, servers: Sequence[str], *, prefix: bool) -> None:
        self._names = DisplayNames(servers, prefix=prefix)
        self._first: dict[tuple[str, str], int] = {}
        """(display name, server) → the listing in which that server first offered the name."""
        self._listings = 0
        self._once = _Once()

    def display(self, server: str, name: str) -> str:
        """The name the model sees for tool `name` of `server` (`""`: none, left out)."""
        return self._names.display(server, name)

    async def resolve(self, tools: Sequence[MCPTool]) -> list[MCPTool]:
        """`tools` without those the model cannot be shown (pacing itself, as listings run to
        thousands of tools): one pass over them, and one more only when two share a name or one
        was changed or shows nothing."""
        kept = await self._resolve(tools)
        if len(self._first) > _REMEMBERED:
            await self._prune(tools)
        return kept

    async def _resolve(self, tools: Sequence[MCPTool]) -> list[MCPTool]:
        self._listings += 1
        listing, first = self._listings, self._first
        seen: dict[str, MCPTool] = {}
        rivals: dict[str, list[MCPTool]] = {}
        unusual = False
        raw = self._names.raw
        async for tool in paced(tools):
            name, binding = tool.name, tool.binding
            if not name:
                unusual = True  # nameless: left out below
                continue
            # Recording first sights now is the same as after `_keeper`, which counts a name
            # not yet recorded as offered in this listing.
            first.setdefault((name, binding.server_name), listing)
            if name in seen:
                rivals.setdefault(name, [seen[name]]).append(tool)
            else:
                seen[name] = tool
            if not unusual and name != raw(binding.server_name, binding.tool.name):
                unusual = True  # renamed (a name that is not plain always is)
        if not rivals and not unusual:
            return list(seen.values())  # every tool, in order: each name came once, as it is
        try:
            keepers = {name: self._keeper(name, found) for name, found in rivals.items()}
        except ConfigError:
            self._forget(listing)
            raise
        kept: list[MCPTool] = []
        async for tool in paced(tools):
            keeper = keepers.get(tool.name, tool)
            if not tool.name:
                self._report_nameless(tool)
            elif keeper is not tool:
                self._report_left_out(tool, keeper)
            elif seen.pop(tool.name, None) is not None:  # a server listing one tool twice gives it once
                kept.append(tool)
        self._report_renamed(kept)
        self._report_look_alikes(kept)
        return kept

    def _forget(self, listing: int) -> None:
        """A listing that failed records no first sight (as if it had not happened)."""
        self._first = {key: since for key, since in self._first.items() if since != listing}

    async def _prune(self, tools: Sequence[MCPTool]) -> None:
        """Forget the first sights of names that a server listed in `tools` no longer offers
        (a server that was not listed keeps its names: it may be briefly unreachable)."""
        offered: set[tuple[str, str]] = set()
        async for tool in paced(tools):
            offered.add((tool.name, tool.binding.server_name))
        listed = {server for _, server in offered}
        self._first = {key: since for key, since in self._first.items() if key[1] not in listed or key in offered}

    def _keeper(self, name: str, found: Sequence[MCPTool]) -> MCPTool | None:
        """The tool that keeps `name`: its server offered it first; then the one shown under its
        own name; then, all of one server, its first. None: nobody (see the module's docstring)."""
        since = [self._first.get((name, tool.binding.server_name), self._listings) for tool in found]
        earliest = [tool for tool, first in zip(found, since, strict=True) if first == min(since)]
        earliest = [tool for tool in earliest if not self._renamed(tool)] or earliest
        if len({tool.binding.server_name for tool in earliest}) == 1:
            return earliest[0]
        if self._names.prefix:
            return None
        a, b = earliest[:2]
        shown_as = f" (shown as {name!r})" if self._renamed(a) else ""
        raise ConfigError(
            f"tool name {shown(a.binding.tool.name)}{shown_as} is offered by servers {a.binding.server_name!r} "
            f"and {b.binding.server_name!r}: "
            "set `tool_name_prefix = true` (names become {server}_{tool}) or drop one server"
        )

    def _renamed(self, tool: MCPTool) -> bool:
        return tool.name != self._names.raw(tool.binding.server_name, tool.binding.tool.name)

    def _report_nameless(self, tool: MCPTool) -> None:
        binding = tool.binding
        if self._once.first(("nameless", binding.server_name, binding.tool.name)):
            logger.warning(
                "mcpbridge: leaving out a tool of server %r: its name %s shows nothing a model could call it by",
                binding.server_name,
                shown(binding.tool.name),
            )

    def _report_left_out(self, late: MCPTool, keeper: MCPTool | None) -> None:
        server, name = late.binding.server_name, late.binding.tool.name
        if not self._once.first(("left out", server, name, late.name)):
            return
        if keeper is None:
            why = f"another server's tool has the same name, {shown(late.name)}, and neither offered it first"
        elif not self._names.prefix:
            why = f"server {keeper.binding.server_name!r} offered a tool of that name first"
            why += " (set `tool_name_prefix = true` to keep both)"
        else:
            why = (
                f"its name as the model sees it, {shown(late.name)}, is that of tool "
                f"{shown(keeper.binding.tool.name)} of server {keeper.binding.server_name!r}"
            )
        logger.warning("mcpbridge: leaving out tool %s of server %r: %s", shown(name), server, why)

    def _report_renamed(self, kept: Iterable[MCPTool]) -> None:
        """One warning per server for the names it lists that the model is shown otherwise."""
        renamed: dict[str, list[MCPTool]] = {}
        for tool in kept:
            server, name = tool.binding.server_name, tool.binding.tool.name
            if self._renamed(tool) and self._once.first(("renamed", server, name)):
                renamed.setdefault(server, []).append(tool)
        for server, tools in renamed.items():
            examples = ", ".join(f"{shown(t.binding.tool.name)} as {t.name!r}" for t in tools[:_EXAMPLES])
            more = f" and {len(tools) - _EXAMPLES} more" if len(tools) > _EXAMPLES else ""
            logger.warning(
                "mcpbridge: the model is shown %d tool(s) of server %r under another name (model providers accept "
                "only 1-64 of a-z A-Z 0-9 _ -, and with `tool_name_prefix` a name another server's prefix gives "
                "is that server's): %s%s. Calls still send the MCP name, and policies select by it",
                len(tools),
                server,
                examples,
                more,
            )

    def _report_look_alikes(self, kept: Sequence[MCPTool]) -> None:
        """Warn once about each two tools whose names differ only by invisible or look-alike
        characters (a server shadowing another's tool by a name that reads the same)."""
        if all(plain(tool.binding.tool.name) for tool in kept):
            return
        alike: dict[str, dict[str, MCPTool]] = {}
        for tool in kept:
            written = self._names.raw(tool.binding.server_name, tool.binding.tool.name)
            key = written if plain(written) else look_alike_key(written)
            alike.setdefault(key, {}).setdefault(written, tool)
        for group in alike.values():
            one, *others = group.values()
            for other in others:
                self._report_look_alike(one, other)

    def _report_look_alike(self, one: MCPTool, other: MCPTool) -> None:
        (a_server, a_name, a_shown), (b_server, b_name, b_shown) = sorted(
            (t.binding.server_name, t.binding.tool.name, t.name) for t in (one, other)
        )
        if self._once.first(("look-alike", a_server, a_name, b_server, b_name)):
            logger.warning(
                "mcpbridge: tool %s of server %r and tool %s of server %r differ only by invisible or look-alike "
                "characters (the model sees %r and %r): check that each server is meant to offer its tool",
                shown(a_name),
                a_server,
                shown(b_name),
                b_server,
                a_shown,
                b_shown,
            )
