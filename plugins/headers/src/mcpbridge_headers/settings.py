"""The `[plugins.headers]` table: `servers.<server>.<header> = "<source>"` and
`providers.<server>` = a callable or "module:function"."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ImportString, PlainValidator

from mcpbridge import ServerName, ValueSource, header_problem

if TYPE_CHECKING:  # the call pipeline imports mcp: the settings are read without it
    from mcpbridge import ToolCallRequest

OnMissing: TypeAlias = Literal["error", "skip"]

HeaderProvider: TypeAlias = Callable[
    ["ToolCallRequest"], "Mapping[str, str | None] | Awaitable[Mapping[str, str | None] | None] | None"
]
"""`(request) -> {header: value}` (sync or async): headers computed in code for one call.
A `None` value leaves that header out."""

RUN_SOURCES = ("context.", "state.", "config.", "header.")


def _source(text: object) -> ValueSource | str:
    """A value source (`context.<key>`, `state.<key>`, `config.<path>`, `header.<name>`), read
    on every call; or a fixed value: `env:NAME` (read now), `literal:<text>`, any other text."""
    if not isinstance(text, str):
        raise ValueError(f"a header source is text, not a {type(text).__name__}")
    if text.startswith(RUN_SOURCES):
        return ValueSource.parse(text)
    if text.startswith("env:"):
        name = text.removeprefix("env:")
        value = os.environ.get(name)
        if value is None:
            raise ValueError(f"reads the environment variable {name!r}, which is not set: set it or drop the header")
        return value
    return text.removeprefix("literal:")


class Header(BaseModel):
    """One header: `"<source>"`, or the table `{ source = "<source>", on_missing = "skip" }`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: Annotated[ValueSource | str, PlainValidator(_source)]
    on_missing: OnMissing | None = None


def _tables(headers: Any) -> Any:
    if not isinstance(headers, Mapping):
        return headers
    return {name: {"source": spec} if isinstance(spec, str) else spec for name, spec in headers.items()}


def _checked(headers: dict[str, Header]) -> dict[str, Header]:
    """Names are valid and given once (names ignore case; kept in lower case); fixed values
    follow the core's rules (`header_problem`, RFC 9110), never quoted in the message."""
    checked: dict[str, Header] = {}
    for name, header in headers.items():
        fixed = header.source if isinstance(header.source, str) else None
        problem = header_problem(name, fixed)
        if problem is not None:
            raise ValueError(problem)
        if name.lower() in checked:
            raise ValueError(f"sets header {name.lower()!r} twice (header names ignore case): keep one")
        checked[name.lower()] = header
    return checked


class HeadersSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    on_missing: OnMissing = "error"
    servers: dict[ServerName, Annotated[dict[str, Header], BeforeValidator(_tables), AfterValidator(_checked)]] = Field(
        default_factory=dict
    )
    providers: dict[ServerName, ImportString[Callable[..., Any]]] = Field(default_factory=dict)
