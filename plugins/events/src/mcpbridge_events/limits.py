"""How much of a call the events keep: servers decide how many notifications a call gets and
how long each text is (a log flood, a 1 MB log line), so every text is cut to a byte budget
and every consumer keeps only the latest updates of a call."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_UPDATES = 200
"""`[plugins.events] max_updates_per_call`: updates of one call a consumer keeps (the latest)."""
DEFAULT_MAX_TEXT_BYTES = 4096
"""`[plugins.events] max_text_bytes`: UTF-8 bytes of one text (a log line, a status message)."""
MIN_TEXT_BYTES = 256
"""Below this a cut text would be mostly its marker."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The per-call caps: `max_updates_per_call` kept updates, `max_text_bytes` per text."""

    max_updates_per_call: int = DEFAULT_MAX_UPDATES
    max_text_bytes: int = DEFAULT_MAX_TEXT_BYTES

    def __post_init__(self) -> None:
        _check("max_updates_per_call", self.max_updates_per_call, 1)
        _check("max_text_bytes", self.max_text_bytes, MIN_TEXT_BYTES)

    def to_event(self) -> dict[str, int]:
        return {"max_updates_per_call": self.max_updates_per_call, "max_text_bytes": self.max_text_bytes}

    @classmethod
    def from_event(cls, value: Any) -> Limits | None:
        """The limits a `started` event announces; None when it has none (or unusable ones)."""
        if not isinstance(value, Mapping):
            return None
        try:  # the constructor refuses what is not a whole number in range
            return cls(value["max_updates_per_call"], value["max_text_bytes"])
        except (KeyError, ValueError):
            return None


def cut_text(text: str, max_bytes: int, *, partial: bool = False) -> str:
    """`text` if it fits in `max_bytes` UTF-8 bytes, else its start and a marker saying how much
    was cut, `max_bytes` in all. `partial`: `text` is only the start of a longer one (always
    cut; the marker says "over")."""
    if not partial and len(text) * 4 <= max_bytes:  # no character takes more than 4 bytes: fits unmeasured
        return text
    encoded = text.encode("utf-8", "surrogatepass")
    if not partial and len(encoded) <= max_bytes:
        return text
    room = max_bytes - len(_marker(len(encoded), len(encoded), partial).encode())
    while room > 0 and encoded[room] & 0xC0 == 0x80:  # never half a character
        room -= 1
    return encoded[:room].decode("utf-8", "surrogatepass") + _marker(len(encoded) - room, len(encoded), partial)


def bounded(value: Any, max_bytes: int) -> Any:
    """A JSON-friendly value at most `max_bytes` long: a string is cut; a list or mapping whose
    JSON is longer becomes that JSON, cut."""
    if isinstance(value, str):
        return cut_text(value, max_bytes)
    if isinstance(value, Mapping | list | tuple):
        try:
            text, partial = _json_start(value, max_bytes)
        except (TypeError, ValueError):  # keys JSON cannot have, a cycle
            text, partial = str(value), False
        cut = cut_text(text, max_bytes, partial=partial)
        return value if cut is text else cut
    return value


_JSON = json.JSONEncoder(default=str, ensure_ascii=False)


def _json_start(value: Any, max_chars: int) -> tuple[str, bool]:
    """`value`'s JSON, or only its start (and True) once that is over `max_chars` characters.
    Encoded lazily: a server's log data of a million items costs what its first items cost
    (it was encoded whole, and made JSON-friendly item by item first, for every call in flight
    on the session: 1.8 s each)."""
    parts: list[str] = []
    size = 0
    for chunk in _JSON.iterencode(value):
        parts.append(chunk)
        size += len(chunk)
        if size > max_chars:
            return "".join(parts), True
    return "".join(parts), False


def _check(name: str, value: object, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{name} must be a whole number >= {least}, not {value!r}")


def _marker(cut: int, total: int, partial: bool = False) -> str:
    return f"… [the rest of over {total:,} bytes cut]" if partial else f"… [{cut:,} of {total:,} bytes cut]"
