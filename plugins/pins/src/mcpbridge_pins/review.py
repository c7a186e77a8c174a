"""What a bridge remembers of its servers' tool definitions, per (server, MCP tool name) —
never the prefixed display name — for as long as it lives: the plugin's `ToolReview`.

A server may change a tool after listing it (`tools/list_changed`): a new description can
carry instructions for the model, new annotations can waive a policy. So a changed
definition is logged (server, tool, which fields) and announced to the plugins' bridge
observers as `tool.changed`; the hints every policy reads never relax (the most cautious
reading seen is the one offered); and with `pin_tools` a changed tool is left out until a
person accepts it (`mcpbridge_pins.accept_tools`, `mcpbridge pins accept`).

A definition is examined when the server lists it anew, not on every `list_tools()`: a
listing that returns the same objects costs a dictionary lookup per tool.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from mcp.types import Tool

from mcpbridge import BridgeContext, ToolHints, tool_hints
from mcpbridge_pins.cautious import annotated_as, contradictory, most_cautious
from mcpbridge_pins.settings import PinsSettings
from mcpbridge_pins.store import Definition, PinStore

logger = logging.getLogger("mcpbridge_pins")

SHOWN_CHARACTERS = 80
"""How much of a server's text (a tool name, annotations) a log line quotes."""
ACCEPT = "mcpbridge pins accept"
PACE = 1000
"""Tools reviewed between two turns given to the event loop (listings run to thousands)."""
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
"""A tool name a log line may show unquoted, in the command that accepts it."""


def shown(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """Server text for a log line: repr'd (a newline or control character cannot forge a
    line) and cut to `limit` characters."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[:limit] + "…"


@dataclass(frozen=True, slots=True)
class HeldTool:
    """A tool left out because its definition differs from its pin (`pin_tools`)."""

    server_name: str
    tool: Tool
    """The definition the server lists now, the one accepting would pin."""
    changed: tuple[str, ...]
    """The fields that differ from the pinned definition."""


@dataclass(slots=True)
class _Known:
    listed: Tool
    """The definition as the server listed it last."""
    hints: ToolHints
    """The most cautious reading of every definition listed for this tool so far."""
    offered: Tool
    """`listed`, with annotations that read as `hints`."""
    held: tuple[str, ...] | None = None
    """None while offered; when its pin holds it back, the fields that differ from the pin."""
    unpinned: bool = False
    """True while it is left out unpinned: its server's pins are all taken (`max_tools`)."""

    @property
    def offered_now(self) -> bool:
        return self.held is None and not self.unpinned


class ToolDefinitions:
    """One bridge's memory of tool definitions; `review()` runs on each listing."""

    def __init__(self, settings: PinsSettings, context: BridgeContext) -> None:
        self._settings = settings
        self._context = context
        self._known: dict[str, dict[str, _Known]] = {}
        """Per server, per MCP tool name, oldest first: at most `max_tools` besides the latest listing's."""
        self._pins = PinStore(settings.path(context.source), settings.max_tools) if settings.pinning else None

    @property
    def held(self) -> tuple[HeldTool, ...]:
        """The tools left out until accepted, per server in the order they were first listed."""
        return tuple(
            HeldTool(server, k.listed, k.held)
            for server, known in self._known.items()
            for k in known.values()
            if k.held is not None
        )

    async def review(self, server: str, listed: Sequence[Tool]) -> list[Tool]:
        """The tools of `server` to offer: each as policies must read it, without those its
        pin holds back. A change is reported once, when the server lists it."""
        memory = self._known.setdefault(server, {})
        learned = []
        for index, tool in enumerate(listed, 1):
            learned.append(self._learn(memory, server, tool))
            if index % PACE == 0:
                await asyncio.sleep(0)
        self._forget_beyond(memory, {known.listed.name for known, _ in learned})
        changes = {known.listed.name: changed for known, changed in learned if changed}
        if self._pins is not None and self._settings.pins(server):
            due = [known for known, changed in learned if changed is not None or not known.offered_now]
            for name, changed in (await self._check_pins(server, due)).items():
                changes.setdefault(name, changed)
        for known, _ in learned:
            if known.listed.name in changes:
                self._report(server, known, changes[known.listed.name])
        if unpinned := sum(known.unpinned for known, _ in learned):
            logger.warning(
                "mcpbridge: server %r lists %d tools past the %d its pins may hold (max_tools); they are left out "
                "unpinned: raise max_tools, or remove the pins of tools it no longer lists from %s",
                server,
                unpinned,
                self._settings.max_tools,
                self._settings.path(self._context.source),
            )
        return [known.offered for known, _ in learned if known.offered_now]

    async def accept(self, selection: Sequence[str] = ()) -> list[str]:
        """Pin the current definitions of the held tools that `selection` names (`"server"`
        or `"server/tool"`; every held tool when empty); returns them as `"server/tool"`."""
        accepted: dict[str, dict[str, Definition]] = {}
        for server, memory in self._known.items():
            for name, known in memory.items():
                if known.held is not None and _named(server, name, selection):
                    accepted.setdefault(server, {})[name] = definition_of(known.listed)
        for server, definitions in accepted.items():
            assert self._pins is not None  # only pinned tools are ever held
            await self._pins.pin(server, definitions, replace=True)
            for name in definitions:
                if (still := self._known[server].get(name)) is not None:  # not forgotten meanwhile
                    still.held = None
        return sorted(f"{server}/{name}" for server, names in accepted.items() for name in names)

    def left_out(self, server: str, name: str) -> str | None:
        """Why `server` offers no tool `name` when its pin holds it back, or there is no room to
        pin it (None otherwise)."""
        known = self._known.get(server, {}).get(name)
        if known is not None and known.unpinned:
            return (
                f"tool {name!r} of server {server!r} is left out unpinned: the server's pins are all taken "
                f"(max_tools = {self._settings.max_tools}); raise max_tools, or remove the pins of tools it no "
                f"longer lists from {self._settings.path(self._context.source)}"
            )
        if known is None or known.held is None:
            return None
        return (
            f"tool {name!r} of server {server!r} is held back: its {', '.join(known.held)} changed since it was "
            f"pinned (pin_tools); review it with `mcpbridge pins`, then `{ACCEPT} {server}/{name}`"
        )

    def _learn(self, memory: dict[str, _Known], server: str, tool: Tool) -> tuple[_Known, tuple[str, ...] | None]:
        """What the bridge knows of `tool` once this listing is taken in (kept in `memory`,
        `server`'s), and the fields that changed since it was listed before (None: the very
        same listing as before)."""
        previous = memory.get(tool.name)
        if previous is not None and previous.listed is tool:
            return previous, None
        if contradictory(tool):
            logger.warning(
                "mcpbridge: tool %s of server %r claims both readOnlyHint and destructiveHint; it is read as "
                "destructive and not read-only: approval gates it, the cache and retry treat it as a write",
                shown(tool.name),
                server,
            )
        own = tool_hints(tool)
        hints = own if previous is None else most_cautious(previous.hints, own)
        known = memory[tool.name] = _Known(tool, hints, tool if hints == own else annotated_as(tool, hints))
        if previous is None:
            return known, ()
        known.held, known.unpinned = previous.held, previous.unpinned
        same = previous.listed == tool
        return known, () if same else changed_fields(definition_of(previous.listed), definition_of(tool))

    def _forget_beyond(self, memory: dict[str, _Known], listed: set[str]) -> None:
        """Keep in `memory` the tools just `listed` and, up to `max_tools` in all, the latest
        of those listed before: a server that renames its tools cannot grow it without bound.
        (A pin outlives its memory: a tool that comes back unlike its pin is still held.)"""
        excess = len(memory) - self._settings.max_tools
        if excess > 0:
            for name in [name for name in memory if name not in listed][:excess]:
                del memory[name]

    async def _check_pins(self, server: str, due: Sequence[_Known]) -> dict[str, tuple[str, ...]]:
        """Compare new definitions, and held ones (accepted elsewhere since?), with the pins
        on file; pin those seen for the first time. Returns the tools it newly holds back,
        with the fields that differ from their pins."""
        if not due:
            return {}
        assert self._pins is not None
        pinned = (await self._pins.load()).get(server, {})
        room = self._pins.max_tools - len(pinned)
        first_seen: dict[str, Definition] = {}
        seen_first: dict[str, _Known] = {}
        newly_held: dict[str, tuple[str, ...]] = {}
        for index, known in enumerate(due, 1):
            if index % PACE == 0:
                await asyncio.sleep(0)
            name, definition = known.listed.name, definition_of(known.listed)
            pin = pinned.get(name)
            known.unpinned = pin is None and len(first_seen) >= room
            if pin is None and not known.unpinned:
                first_seen[name], seen_first[name] = definition, known
            was_held = known.held is not None
            known.held = changed_fields(pin, definition) if pin is not None and pin != definition else None
            if known.held is not None and not was_held:
                newly_held[name] = known.held
        if first_seen:  # another process may have taken the last pins meanwhile
            for name in await self._pins.pin(server, first_seen, replace=False):
                seen_first[name].unpinned = True
        return newly_held

    def _report(self, server: str, known: _Known, changed: tuple[str, ...]) -> None:
        """Log a changed definition and tell the bridge observers (`mcpbridge_bridge_observer`)."""
        name = known.listed.name
        if known.held is not None:
            outcome = f"it is left out until accepted: review it, then `{ACCEPT} {target(server, name)}`"
        elif known.offered is not known.listed:
            outcome = "its annotations are still read as cautiously as before (a relabel never relaxes a policy)"
        else:
            outcome = "the new definition is offered"
        logger.warning(
            "mcpbridge: server %r changed tool %s (%s); %s", server, shown(name), ", ".join(changed), outcome
        )
        data = {"server_name": server, "name": name, "changed": list(changed), "left_out": known.held is not None}
        self._context.notify("tool.changed", data)


def target(server: str, name: str) -> str:
    """What `mcpbridge pins accept` takes for a tool: `server/tool`, or the server alone for a
    tool name a log line or terminal should not carry unquoted."""
    return f"{server}/{name}" if _PLAIN_NAME.fullmatch(name) else server


def definition_of(tool: Tool) -> Definition:
    return tool.model_dump(mode="json", by_alias=True, exclude_none=True)


def changed_fields(before: Definition, after: Definition) -> tuple[str, ...]:
    """The top-level fields that differ (server-made names quoted)."""
    keys = sorted({*before, *after} - {"name"})
    return tuple(key if key.isidentifier() else shown(key) for key in keys if before.get(key) != after.get(key))


def _named(server: str, name: str, selection: Sequence[str]) -> bool:
    return not selection or server in selection or f"{server}/{name}" in selection
