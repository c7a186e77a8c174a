"""Settings values written as text and parsed once, when the settings are validated (a bad
one is a ConfigError naming its key): the pydantic schema they share (`FromText`), the
regular expression (`TextPattern`) and the one grammar for where a value comes from
(`ValueSource`), read on every call with `source.read(request)` (None when absent):

    context.user_id                  runtime.context.user_id
    state.account.id                 runtime.state["account"]["id"]
    config.configurable.tenant       runtime.config["configurable"]["tenant"]
    header.x-user-id                 request.headers["x-user-id"] (names ignore case)

A `TextPattern` runs on text the bridge does not write (a server's error, a model's
arguments), so on RE2 (google-re2), whose searches take time linear in the text, where
Python's `re` can backtrack for seconds (docs/performance.md). RE2 has no lookaround or
backreferences; a pattern that needs them is refused when the settings are validated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Self

import re2  # type: ignore[import-untyped]
from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

if TYPE_CHECKING:
    from mcpbridge._base.pipeline import ToolCallRequest, ToolListRequest


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


Origin = Literal["context", "state", "config", "header"]
_ORIGINS: tuple[Origin, ...] = ("context", "state", "config", "header")
_MISSING = object()


@dataclass(frozen=True, slots=True)
class ValueSource(FromText):
    """A parsed source; use the type in a settings model and give it as text."""

    origin: Origin
    path: tuple[str, ...]

    @classmethod
    def parse(cls, text: Any) -> ValueSource:
        if not isinstance(text, str):
            raise ValueError(f"a value source is text such as `context.user_id`, not a {type(text).__name__}")
        origin, _, rest = text.partition(".")
        path = tuple(rest.split(".")) if rest else ()
        if origin not in _ORIGINS or not path or not all(path) or (origin == "header" and len(path) != 1):
            raise ValueError(
                f"{text!r} is not a value source: use `context.<field>`, `state.<field>`, "
                "`config.<path>` (e.g. `config.configurable.user_id`) or `header.<name>`"
            )
        if origin == "header":
            path = (path[0].lower(),)
        return cls(origin, path)

    def read(self, request: ToolCallRequest | ToolListRequest) -> Any:
        """The value for this call (or listing: it has no headers), or None when any step is missing."""
        if self.origin == "header":
            name = self.path[0]
            return next((value for key, value in (request.headers or {}).items() if key.lower() == name), None)
        return runtime_value(request.runtime, (self.origin, *self.path))

    def __str__(self) -> str:
        return ".".join((self.origin, *self.path))


def runtime_value(runtime: Any, path: Sequence[str]) -> Any:
    """The value at `path` in a LangGraph ToolRuntime — e.g. `("context", "user_id")`,
    `("state", "messages")`, `("config", "configurable", "tenant")` — through mappings and
    attributes alike; None when the runtime or any step is missing."""
    value: Any = runtime
    for key in path:
        value = value.get(key, _MISSING) if isinstance(value, Mapping) else getattr(value, key, _MISSING)
        if value is _MISSING or value is None:
            return None
    return value


def thread_id(request: ToolCallRequest | ToolListRequest) -> str | None:
    """The LangGraph thread the call runs in (`config.configurable.thread_id`, as text); None
    outside a run with a thread."""
    found = runtime_value(request.runtime, ("config", "configurable", "thread_id"))
    return None if found is None else str(found)
