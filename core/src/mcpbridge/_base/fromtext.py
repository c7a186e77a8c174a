"""Settings values written as text and parsed once, when the settings are validated: the
pydantic schema they share (`FromText`), and the regular expression (`TextPattern`).

A `TextPattern` runs on text the bridge does not write (a server's error, a model's
arguments), so on RE2 (google-re2), whose searches take time linear in the text, where
Python's `re` can backtrack for seconds (docs/performance.md). RE2 has no lookaround or
backreferences; a pattern that needs them is refused when the settings are validated."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Self

import re2  # type: ignore[import-untyped]
from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema


class FromText:
    """Use the subclass as a field's type: text given for it goes through `parse` (a
    `ValueError` is a `ConfigError` naming the key), an instance is taken as it is, and
    `str()` writes it back."""

    __slots__ = ()

    @classmethod
    def parse(cls, value: Any) -> Self:
        """What `value` (text) stands for; a `ValueError` says why it cannot be one."""
        raise NotImplementedError

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            lambda value: value if isinstance(value, cls) else cls.parse(value),
            json_schema_input_schema=core_schema.str_schema(),
            serialization=core_schema.plain_serializer_function_ser_schema(str),
        )


_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))
_QUIET = re2.Options()
_QUIET.log_errors = False  # an invalid pattern is a ConfigError, not a line on stderr


@dataclass(frozen=True, slots=True)
class TextPattern(FromText):
    """A compiled pattern; use the type in a settings model and give it as text (a compiled
    `re.Pattern` gives its source and its i/m/s flags)."""

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
