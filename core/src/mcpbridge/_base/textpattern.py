"""A regular expression given in settings, run on text the bridge does not write (a server's
error, a model's arguments): so on RE2 (google-re2), whose searches take time linear in the
text. Python's `re` spent ~13 s on `.*unavailable` in 100 KB; RE2 has no lookaround or
backreferences, and a pattern that needs them is refused when the settings are validated."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import re2  # type: ignore[import-untyped]

from mcpbridge._base.fromtext import FromText

_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))
_QUIET = re2.Options()
_QUIET.log_errors = False  # an invalid pattern is a ConfigError, not a line on stderr


@dataclass(frozen=True, slots=True)
class TextPattern(FromText):
    """A compiled pattern; use the type in a settings model and give it as text (a compiled
    `re.Pattern` gives its source and its i/m/s flags). A bad pattern is a `ValueError`, which
    the plugin host reports as a `ConfigError` naming the key."""

    pattern: str
    _compiled: Any = field(repr=False, compare=False)

    @classmethod
    def parse(cls, value: Any) -> TextPattern:
        if isinstance(value, re.Pattern):
            flags = "".join(letter for flag, letter in _FLAGS if value.flags & flag)
            value = f"(?{flags}){value.pattern}" if flags else value.pattern
        if not isinstance(value, str):
            raise ValueError(f"{value!r} is not a regular expression (give it as text)")
        try:
            return cls(value, re2.compile(value, _QUIET))
        except re2.error as exc:
            reason = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else exc
            raise ValueError(
                f"{value!r} is not a valid regular expression for RE2 (no lookaround or backreferences): {reason}"
            ) from None

    def search(self, text: str) -> bool:
        """Whether the pattern matches somewhere in `text` (searched as UTF-8 with
        `surrogatepass`: a server's or a model's text may hold lone surrogates)."""
        return self._compiled.search(text.encode("utf-8", "surrogatepass")) is not None

    def __str__(self) -> str:
        return self.pattern
