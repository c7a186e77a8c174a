"""One grammar for "where a value comes from" in settings: a field of the LangGraph run
or a header already on the request.

    context.user_id                  runtime.context.user_id
    state.account.id                 runtime.state["account"]["id"]
    config.configurable.tenant       runtime.config["configurable"]["tenant"]
    header.x-user-id                 request.headers["x-user-id"] (names ignore case)

Parsed once when settings are validated (a bad source is a ConfigError naming its key);
read on every call with `source.read(request)`, which gives None when the value is absent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from mcpbridge._base.fromtext import FromText

if TYPE_CHECKING:  # the pipeline imports mcp: settings parse sources without it
    from mcpbridge._base.pipeline import ToolCallRequest

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

    def read(self, request: ToolCallRequest) -> Any:
        """The value for this call, or None when any step is missing."""
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


def thread_id(request: ToolCallRequest) -> str | None:
    """The LangGraph thread the call runs in (`config.configurable.thread_id`, as text); None
    outside a run with a thread."""
    found = runtime_value(request.runtime, ("config", "configurable", "thread_id"))
    return None if found is None else str(found)
