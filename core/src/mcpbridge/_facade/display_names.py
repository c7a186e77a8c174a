"""The name the model sees for an MCP tool: a pure function of the server's name, the MCP
tool name, `tool_name_prefix` and the configured servers' names, never of which servers were
up when the tools were first listed.

Model providers accept tool names matching `^[a-zA-Z0-9_-]{1,64}$` and refuse the whole
model call for one name outside it, so a name outside it (or one another configured server's
prefix could also produce) is shown in a valid form with a short hash of what it stands for.
The MCP name stays what is sent and what policies select.
"""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from collections.abc import Sequence

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


def nameless(name: str) -> bool:
    """Whether `name` shows nothing at all (empty, blanks, invisible characters): a tool so
    named cannot be named to the model."""
    return all(character.isspace() or _invisible(character) for character in name)


def plain(name: str) -> bool:
    """Whether `name` is printable ASCII without blanks at its ends: its own look-alike key."""
    return name.isascii() and name.isprintable() and name == name.strip()


def look_alike_key(name: str) -> str:
    """What `name` looks like: NFKC-normalised, invisible characters dropped, blanks at its
    ends stripped, Cyrillic and Greek look-alikes of Latin letters read as those."""
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
        if nameless(name):
            return ""
        raw = self.raw(server, name)
        if _VALID.fullmatch(raw) and not (self.prefix and raw.startswith(self._longer.get(server, ()))):
            return raw
        stands_for = f"{server}\0{name}" if self.prefix else name
        digest = hashlib.sha256(stands_for.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH]
        if self.prefix:
            own = self._prefixes.get(server) or _readable(server) + "_"
            return f"{own[:_KEPT_PREFIX]}{digest}_{_readable(name)}"[:MAX_NAME]
        return f"{_readable(name)[: MAX_NAME - _HASH - 1]}_{digest}"


def _report(servers: Sequence[str], prefixes: dict[str, str]) -> None:
    """Warn once, when the bridge is built, about the server names that make prefixed tool
    names ambiguous or invalid, with the fix."""
    for server in servers:
        if not _VALID.fullmatch(server):
            logger.warning(
                "mcpbridge: server name %r is not valid in a tool name, so with `tool_name_prefix = true` the "
                "model sees each of its tools as '%s<8 hex digits>_<tool>': rename the server to %r",
                server,
                prefixes[server][:_KEPT_PREFIX],
                prefixes[server][:-1],
            )
        own = prefixes[server]
        for other, theirs in prefixes.items():
            if theirs.startswith(own) and len(theirs) > len(own):
                rest = theirs[len(own) :]
                logger.warning(
                    "mcpbridge: with `tool_name_prefix = true`, tool '%s<name>' of server %r and tool '<name>' of "
                    "server %r would both be named '%s<name>': that name is %r's, and %r's tools named '%s…' are "
                    "shown as '%s<8 hex digits>_%s…'. Rename one server (e.g. %r → %r) to keep the names plain",
                    rest,
                    server,
                    other,
                    theirs,
                    other,
                    server,
                    rest,
                    own,
                    rest,
                    other,
                    theirs[:-1].replace("_", "-"),
                )
