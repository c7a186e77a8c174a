"""The names the model sees for MCP tools, and which tool answers to each.

A display name is a pure function of the server's name, the MCP tool name,
`tool_name_prefix` and the configured servers' names (`DisplayNames`), never of which
servers were up when the tools were first listed. Model providers accept tool names matching
`^[a-zA-Z0-9_-]{1,64}$` and refuse the whole model call for one name outside it, so a name
outside it (or one another configured server's prefix could also produce) is shown in a
valid form with a short hash of what it stands for. The MCP name stays what is sent and what
policies select.

With `tool_name_prefix` no two servers' tools get the same name unless a server crafts one.
When two tools still share a display name (`ToolNames`, once per listing), the one whose
server offered it first in the bridge's life keeps it; one shown under its own name beats one
given a hashed name; the other is left out, with a warning naming both servers, and every
other tool keeps working. Only two servers offering one plain name for the first time in the
same listing, without `tool_name_prefix`, are a configuration problem (`ConfigError`); with
it, both tools are left out.

A tool whose name shows nothing is left out; names made valid for the model, and names that
differ only by invisible or look-alike characters, are reported once.
"""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from collections.abc import Iterable, Sequence

from mcpbridge._base.errors import ConfigError, shown
from mcpbridge._session.loops import paced
from mcpbridge._tools.tool import MCPTool

logger = logging.getLogger(__name__)

MAX_NAME = 64
"""The longest tool name every model provider accepts."""
_VALID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_REFUSED = re.compile(r"[^A-Za-z0-9_-]+")
_HASH = 8
_READ = 4 * MAX_NAME
"""How much of a long name is made readable: only its start survives the cut (the hash
stands for all of it)."""

_KEPT_PREFIX = 40
"""A server's prefix is cut to this in a hashed name, so the hash always fits."""

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_IGNORABLE = frozenset(
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180E, 0x180F, 0x2800, 0x3164, 0xFFA0}
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)
"""Default-ignorable characters outside the format category (fillers, variation selectors)."""
_LOOK_ALIKES = str.maketrans(
    # Cyrillic and Greek letters drawn like Latin ones (NFKC leaves them apart): these, then those.
    "аеорсухіјѕԁһӏԛԝАВЕКМНОРСТХЅІЈѴԜΑΒΕΖΗΙΚΜΝΟΡΤΥΧοινρτυκχ",
    "aeopcyxijsdhlqwABEKMHOPCTXSIJVWABEZHIKMNOPTYXoivptukx",
)


def _invisible(character: str) -> bool:
    return unicodedata.category(character) in _INVISIBLE_CATEGORIES or ord(character) in _IGNORABLE


def _plain(name: str) -> bool:
    """Whether `name` is printable ASCII without blanks at its ends: its own look-alike key."""
    return name.isascii() and name.isprintable() and name == name.strip()


def _look_alike_key(name: str) -> str:
    """What `name` looks like: itself when plain, else NFKC-normalised, invisible characters
    dropped, blanks at its ends stripped, Cyrillic and Greek look-alikes of Latin letters read
    as those."""
    if _plain(name):
        return name
    normal = unicodedata.normalize("NFKC", name)
    return "".join(c for c in normal if not _invisible(c)).strip().translate(_LOOK_ALIKES)


def _readable(text: str) -> str:
    """`text` with accents dropped (é → e), compatibility forms folded (fullwidth letters,
    ligatures) and every run of characters a provider refuses turned into one `_`."""
    folded = unicodedata.normalize("NFKD", text[:_READ])
    kept = "".join(c for c in folded if not unicodedata.combining(c))
    return _REFUSED.sub("_", kept).strip("_") or "tool"


class DisplayNames:
    """The display names of one bridge's tools (see the module's docstring)."""

    def __init__(self, servers: Sequence[str], *, prefix: bool) -> None:
        self.prefix = prefix
        self._prefixes = {server: _readable(server) + "_" for server in servers}
        self._longer: dict[str, tuple[str, ...]] = {
            server: tuple(
                theirs for theirs in self._prefixes.values() if theirs.startswith(own) and len(theirs) > len(own)
            )
            for server, own in self._prefixes.items()
        }
        """Per server, the longer prefixes of other servers that begin with its own: a name
        beginning with one of those is that server's, never this one's."""
        if prefix:
            _report(servers, self._prefixes)

    def raw(self, server: str, name: str) -> str:
        """The name as the prefix setting writes it, before anything is made valid."""
        return f"{server}_{name}" if self.prefix else name

    def display(self, server: str, name: str) -> str:
        """The name the model sees for tool `name` of `server`: as the prefix setting writes it
        when that is valid and no longer-named server's prefix could produce it; else, with the
        prefix, `{server}_{hash}_{tool}` (8 hex digits of a hash of both, which no other
        server's plain names begin with), and without, `{tool}_{hash}`, each readable and cut
        to fit; `""` for a name that shows nothing (such a tool is left out)."""
        if all(c.isspace() or _invisible(c) for c in name):  # it shows nothing a model could call
            return ""
        raw = self.raw(server, name)
        if _VALID.fullmatch(raw) and not (self.prefix and raw.startswith(self._longer[server])):
            return raw
        stands_for = f"{server}\0{name}" if self.prefix else name
        digest = hashlib.sha256(stands_for.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH]
        if self.prefix:
            return f"{self._prefixes[server][:_KEPT_PREFIX]}{digest}_{_readable(name)}"[:MAX_NAME]
        return f"{_readable(name)[: MAX_NAME - _HASH - 1]}_{digest}"


def _report(servers: Sequence[str], prefixes: dict[str, str]) -> None:
    """Warn once, when the bridge is built, about the server names that make prefixed tool
    names ambiguous or invalid, with the fix."""
    for server in servers:
        own = prefixes[server]
        if not _VALID.fullmatch(server):
            logger.warning(
                f"mcpbridge: server name {server!r} is not valid in a tool name, so with `tool_name_prefix = true` "
                f"the model sees each of its tools as '{own[:_KEPT_PREFIX]}<8 hex digits>_<tool>': rename the "
                f"server to {own[:-1]!r}"
            )
        for other, theirs in prefixes.items():
            if theirs.startswith(own) and len(theirs) > len(own):
                rest = theirs[len(own) :]
                logger.warning(
                    f"mcpbridge: with `tool_name_prefix = true`, tool '{rest}<name>' of server {server!r} and tool "
                    f"'<name>' of server {other!r} would both be named '{theirs}<name>': that name is {other!r}'s, "
                    f"and {server!r}'s tools named '{rest}…' are shown as '{own}<8 hex digits>_{rest}…'. Rename one "
                    f"server (e.g. {other!r} → {theirs[:-1].replace('_', '-')!r}) to keep the names plain"
                )


_REMEMBERED = 10_000
"""Reports, and first sights, remembered: past it a report is forgotten (a server renaming
its tools at every listing gets one again rather than growing the bridge's memory), and so
is the first sight of a name its server, listed since, no longer offers."""
_EXAMPLES = 3


class ToolNames(DisplayNames):
    """One bridge's display names and its record of who offered each one first."""

    def __init__(self, servers: Sequence[str], *, prefix: bool) -> None:
        super().__init__(servers, prefix=prefix)
        self._first: dict[tuple[str, str], int] = {}
        """(display name, server) → the listing in which that server first offered the name."""
        self._listings = 0
        self._reported: set[tuple[str, ...]] = set()

    async def resolve(self, tools: Sequence[MCPTool]) -> list[MCPTool]:
        """`tools` without those the model cannot be shown (pacing itself, as listings run to
        thousands of tools): one pass over them, and one more only when two share a name or one
        was changed or shows nothing."""
        if len(self._first) > _REMEMBERED:
            # forget the names a listed server no longer offers (one not listed keeps its names: it
            # may be briefly unreachable), before this listing records its own
            offered = {(tool.name, tool.binding.server_name) async for tool in paced(tools)}
            listed = {server for _, server in offered}
            self._first = {key: since for key, since in self._first.items() if key[1] not in listed or key in offered}
        self._listings += 1
        listing, first = self._listings, self._first
        seen: dict[str, MCPTool] = {}
        rivals: dict[str, list[MCPTool]] = {}
        unusual = False
        raw = self.raw
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
        except ConfigError:  # a listing that failed records no first sight (as if it had not happened)
            self._first = {key: since for key, since in self._first.items() if since != listing}
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

    def _keeper(self, name: str, found: Sequence[MCPTool]) -> MCPTool | None:
        """The tool that keeps `name`: its server offered it first; then the one shown under its
        own name; then, all of one server, its first. None: nobody (see the module's docstring)."""
        since = [self._first.get((name, tool.binding.server_name), self._listings) for tool in found]
        earliest = [tool for tool, first in zip(found, since, strict=True) if first == min(since)]
        earliest = [tool for tool in earliest if not self._renamed(tool)] or earliest
        if len({tool.binding.server_name for tool in earliest}) == 1:
            return earliest[0]
        if self.prefix:
            return None
        a, b = earliest[:2]
        shown_as = f" (shown as {name!r})" if self._renamed(a) else ""
        raise ConfigError(
            f"tool name {shown(a.binding.tool.name)}{shown_as} is offered by servers {a.binding.server_name!r} "
            f"and {b.binding.server_name!r}: "
            "set `tool_name_prefix = true` (names become {server}_{tool}) or drop one server"
        )

    def _first_report(self, *key: str) -> bool:
        """Whether `key` is reported for the first time (the memory of reports is bounded)."""
        if key in self._reported:
            return False
        if len(self._reported) >= _REMEMBERED:
            self._reported.clear()
        self._reported.add(key)
        return True

    def _renamed(self, tool: MCPTool) -> bool:
        return tool.name != self.raw(tool.binding.server_name, tool.binding.tool.name)

    def _report_nameless(self, tool: MCPTool) -> None:
        server, name = tool.binding.server_name, tool.binding.tool.name
        if self._first_report("nameless", server, name):
            logger.warning(
                f"mcpbridge: leaving out a tool of server {server!r}: its name {shown(name)} shows nothing a model "
                "could call it by"
            )

    def _report_left_out(self, late: MCPTool, keeper: MCPTool | None) -> None:
        server, name = late.binding.server_name, late.binding.tool.name
        if not self._first_report("left out", server, name, late.name):
            return
        if keeper is None:
            why = f"another server's tool has the same name, {shown(late.name)}, and neither offered it first"
        elif not self.prefix:
            why = f"server {keeper.binding.server_name!r} offered a tool of that name first"
            why += " (set `tool_name_prefix = true` to keep both)"
        else:
            why = (
                f"its name as the model sees it, {shown(late.name)}, is that of tool "
                f"{shown(keeper.binding.tool.name)} of server {keeper.binding.server_name!r}"
            )
        logger.warning(f"mcpbridge: leaving out tool {shown(name)} of server {server!r}: {why}")

    def _report_renamed(self, kept: Iterable[MCPTool]) -> None:
        """One warning per server for the names it lists that the model is shown otherwise."""
        renamed: dict[str, list[MCPTool]] = {}
        for tool in kept:
            server, name = tool.binding.server_name, tool.binding.tool.name
            if self._renamed(tool) and self._first_report("renamed", server, name):
                renamed.setdefault(server, []).append(tool)
        for server, tools in renamed.items():
            examples = ", ".join(f"{shown(t.binding.tool.name)} as {t.name!r}" for t in tools[:_EXAMPLES])
            more = f" and {len(tools) - _EXAMPLES} more" if len(tools) > _EXAMPLES else ""
            logger.warning(
                f"mcpbridge: the model is shown {len(tools)} tool(s) of server {server!r} under another name (model "
                "providers accept only 1-64 of a-z A-Z 0-9 _ -, and with `tool_name_prefix` a name another server's "
                f"prefix gives is that server's): {examples}{more}. Calls still send the MCP name, and policies "
                "select by it"
            )

    def _report_look_alikes(self, kept: Sequence[MCPTool]) -> None:
        """Warn once about each two tools whose names differ only by invisible or look-alike
        characters (a server shadowing another's tool by a name that reads the same)."""
        if all(_plain(tool.binding.tool.name) for tool in kept):
            return
        alike: dict[str, dict[str, MCPTool]] = {}
        for tool in kept:
            written = self.raw(tool.binding.server_name, tool.binding.tool.name)
            alike.setdefault(_look_alike_key(written), {}).setdefault(written, tool)
        for one, *others in (group.values() for group in alike.values()):
            for other in others:
                (a_server, a_name, a_shown), (b_server, b_name, b_shown) = sorted(
                    (t.binding.server_name, t.binding.tool.name, t.name) for t in (one, other)
                )
                if self._first_report("look-alike", a_server, a_name, b_server, b_name):
                    logger.warning(
                        f"mcpbridge: tool {shown(a_name)} of server {a_server!r} and tool {shown(b_name)} of server "
                        f"{b_server!r} differ only by invisible or look-alike characters (the model sees {a_shown!r} "
                        f"and {b_shown!r}): check that each server is meant to offer its tool"
                    )
