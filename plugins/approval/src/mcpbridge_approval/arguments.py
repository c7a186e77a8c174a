"""Argument tests that odd values cannot fool: a path matcher where `*` stays inside one
directory and `..` is never waived, and numbers that refuse NaN and infinities.

Each test answers `MATCH`, `NO_MATCH` or `SUSPECT`. `SUSPECT` means the value is of a kind the
test cannot judge honestly (a path with a `..` segment, a non-string for a text test, NaN, an
infinity or a non-number for a number test); a rule whose other conditions hold then
*requires* approval, whatever its `approval` says.
"""

from __future__ import annotations

import enum
import math
import posixpath
from functools import lru_cache
from typing import Any

from mcpbridge import TextPattern


class Verdict(enum.Enum):
    MATCH = "match"
    NO_MATCH = "no match"
    SUSPECT = "suspect"


_DOT_DOT = TextPattern.parse(r"(?:\A|[/\\])\.\.(?:[/\\]|\z)")
"""A `..` segment. Segments are found by RE2, not by splitting the value into a list (a
3.5 MB path of 500,000 segments took 0.27 s per split; this takes milliseconds)."""
_EMPTY_OR_DOT = TextPattern.parse(r"[/\\]\.?(?:[/\\]|\z)")
"""An empty or `.` segment after the first one."""


def is_suspect_path(text: str) -> bool:
    """A `..` segment (split on `/` and `\\`, so a Windows server is covered too) or a NUL.

    `..` is refused rather than normalised away: `/tmp/link/..` is not `/tmp` when `link` is
    a symbolic link, and only the server knows its file system.
    """
    return "\x00" in text or _DOT_DOT.search(text)


@lru_cache(maxsize=256)
def compile_glob(glob: str) -> TextPattern:
    """`glob` as an anchored pattern on RE2, linear in the value (on Python's `re`,
    `**/*secret*` took 2.5 s on a 36 KB path): `**` matches anything (any depth), `*` and `?`
    never match a separator (`/`, or `\\` for a Windows server, as in `is_suspect_path`),
    `[abc]` / `[!abc]` are character classes (never matching a separator either)."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        char = glob[i]
        if char == "*":
            out.append(".*" if glob.startswith("**", i) else _NOT_SEPARATOR + "*")
            i += 2 if glob.startswith("**", i) else 1
            continue
        end = glob.find("]", i + 2 if glob.startswith("[!", i) else i + 1) if char == "[" else -1
        if end != -1:
            out.append(_char_class(glob[i + 1 : end]))
            i = end + 1
            continue
        out.append(_NOT_SEPARATOR if char == "?" else _escaped(ord(char), ord(char)))
        i += 1
    return TextPattern.parse(r"(?s)\A" + "".join(out) + r"\z")


_SEPARATORS = (ord("/"), ord("\\"))
_NOT_SEPARATOR = r"[^\x{2f}\x{5c}]"


def _escaped(low: int, high: int) -> str:
    return f"\\x{{{low:x}}}" if low == high else f"\\x{{{low:x}}}-\\x{{{high:x}}}"


def _char_class(body: str) -> str:
    """A glob's `[...]` body (`!` first negates) as an RE2 class less the separators (RE2
    has no lookahead to exclude them, so a range over one is split around it)."""
    negate = body.startswith("!")
    body = body[1:] if negate else body
    ranges: list[tuple[int, int]] = []
    i = 0
    while i < len(body):
        ranged = i + 2 < len(body) and body[i + 1] == "-"
        ranges.append((ord(body[i]), ord(body[i + 2 if ranged else i])))
        i += 3 if ranged else 1
    ranges = [(low, high) for low, high in ranges if low <= high]  # `z-a` is empty
    if negate:
        return "[^" + "".join(_escaped(*pair) for pair in [*ranges, *((s, s) for s in _SEPARATORS)]) + "]"
    for sep in _SEPARATORS:
        cut = [part for low, high in ranges for part in ((low, min(high, sep - 1)), (max(low, sep + 1), high))]
        ranges = [(low, high) for low, high in cut if low <= high]
    return "[" + "".join(_escaped(*pair) for pair in ranges) + "]" if ranges else r"[^\x00-\x{10ffff}]"


def glob_verdict(glob: str, value: Any) -> Verdict:
    """Both sides are normalised with `posixpath.normpath` (`//`, `/./` and a trailing `/`
    go; sound once `..` is refused), so `/tmp/` is `/tmp`, which `/tmp/*` does not match;
    `/`, `/.` and `.` are matched only by a glob that names them exactly."""
    if not isinstance(value, str) or is_suspect_path(value):
        return Verdict.SUSPECT
    glob = posixpath.normpath(glob) if glob else glob
    value = posixpath.normpath(value) if value else value
    if value in _WHOLE_TREES:  # `/.` is `/`: a `*` that may be empty must not make it "inside /"
        return Verdict.MATCH if value == glob else Verdict.NO_MATCH
    if _ambiguous(value):
        return Verdict.SUSPECT
    return Verdict.MATCH if compile_glob(glob).search(value) else Verdict.NO_MATCH


def _ambiguous(normalised: str) -> bool:
    """An empty or `.` segment left after `posixpath.normpath`: only a `\\` makes one
    (`/tmp/\\` is `/tmp` itself on a Windows server, a file named `\\` on a POSIX one)."""
    return _EMPTY_OR_DOT.search(normalised)


_WHOLE_TREES = frozenset({"/", "//", "."})
"""The root and the current directory: matched only by a glob naming exactly them."""


def regex_verdict(pattern: TextPattern, value: Any) -> Verdict:
    if not isinstance(value, str):
        return Verdict.SUSPECT
    return Verdict.MATCH if pattern.search(value) else Verdict.NO_MATCH


def number(value: Any) -> int | float | None:
    """`value` as a finite number, or None (NaN, ±infinity, bool, anything not a number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def compare_verdict(value: Any, *, above: float | None = None, below: float | None = None) -> Verdict:
    checked = number(value)
    if checked is None:
        return Verdict.SUSPECT
    if above is not None:
        return Verdict.MATCH if checked > above else Verdict.NO_MATCH
    assert below is not None
    return Verdict.MATCH if checked < below else Verdict.NO_MATCH
