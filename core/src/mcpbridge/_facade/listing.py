"""Which server a tool name belongs to when two offer the same one (without
`tool_name_prefix`): the server that offered it first in the bridge's life keeps it.

A server that adds a tool after `tools/list_changed` under a name another server already
offers is the late arrival: its tool is left out, with a warning naming both servers, and
every other tool keeps working. Only two servers offering a name for the first time in the
same listing are a configuration problem (`ConfigError`), as there is no first one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from mcpbridge._base.errors import ConfigError
from mcpbridge._session.loops import paced
from mcpbridge._tools.patterns import shown
from mcpbridge._tools.tool import MCPTool

logger = logging.getLogger(__name__)


class ToolNames:
    """One bridge's record of who offered each tool name first."""

    def __init__(self) -> None:
        self._first: dict[tuple[str, str], int] = {}
        """(tool name, server) → the listing in which that server first offered the name."""
        self._listings = 0
        self._warned: set[tuple[str, str]] = set()

    async def resolve(self, tools: Sequence[MCPTool]) -> list[MCPTool]:
        """`tools` without the late arrivals of each name two servers offer (pacing itself, as
        listings run to thousands of tools): one pass over them, and one more only when two
        share a name."""
        self._listings += 1
        listing, first = self._listings, self._first
        seen: dict[str, MCPTool] = {}
        rivals: dict[str, list[MCPTool]] = {}
        async for tool in paced(tools):
            name = tool.name
            # Recording first sights now is the same as after `_keeper`, which counts a name
            # not yet recorded as offered in this listing.
            first.setdefault((name, tool.binding.server_name), listing)
            if name in seen:
                rivals.setdefault(name, [seen[name]]).append(tool)
            else:
                seen[name] = tool
        if not rivals:
            return list(seen.values())  # every tool, in order: each name came once
        try:
            keepers = {name: self._keeper(name, found) for name, found in rivals.items()}
        except ConfigError:
            self._forget(listing)
            raise
        kept: list[MCPTool] = []
        async for tool in paced(tools):
            keeper = keepers.get(tool.name, tool)
            if keeper is tool:
                kept.append(tool)
            else:
                self._warn(tool, keeper)
        return kept

    def _forget(self, listing: int) -> None:
        """A listing that failed records no first sight (as if it had not happened)."""
        self._first = {key: since for key, since in self._first.items() if since != listing}

    def _keeper(self, name: str, found: Sequence[MCPTool]) -> MCPTool:
        since = [self._first.get((name, tool.binding.server_name), self._listings) for tool in found]
        earliest = [tool for tool, first in zip(found, since, strict=True) if first == min(since)]
        if len(earliest) > 1:
            a, b = (tool.binding.server_name for tool in earliest[:2])
            raise ConfigError(
                f"tool name {name!r} is offered by servers {a!r} and {b!r}: "
                "set `tool_name_prefix = true` (names become {server}_{tool}) or drop one server"
            )
        return earliest[0]

    def _warn(self, late: MCPTool, keeper: MCPTool) -> None:
        key = (late.name, late.binding.server_name)
        if key in self._warned:
            return
        self._warned.add(key)
        logger.warning(
            "mcpbridge: leaving out tool %s of server %r: server %r offered a tool of that name first "
            "(set `tool_name_prefix = true` to keep both)",
            shown(late.name),
            late.binding.server_name,
            keeper.binding.server_name,
        )
