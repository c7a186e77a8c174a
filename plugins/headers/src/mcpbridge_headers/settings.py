"""The `[plugins.headers]` table."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ImportString

from mcpbridge import ToolCallRequest

OnMissing: TypeAlias = Literal["error", "skip"]

HeaderProvider: TypeAlias = Callable[
    [ToolCallRequest], "Mapping[str, str | None] | Awaitable[Mapping[str, str | None] | None] | None"
]
"""`(request) -> {header: value}` (sync or async): headers computed in code for one call.
A `None` value leaves that header out."""


class HeaderSpec(BaseModel):
    """The table form of one header, for a per-header `on_missing`."""

    model_config = ConfigDict(extra="forbid")

    source: str
    on_missing: OnMissing | None = None


class HeadersSettings(BaseModel):
    """`servers.<server>.<header> = "<source>"`; `providers.<server>` = a callable or "module:function"."""

    model_config = ConfigDict(extra="forbid")

    on_missing: OnMissing = "error"
    servers: dict[str, dict[str, str | HeaderSpec]] = Field(default_factory=dict)
    providers: dict[str, ImportString[Callable[..., Any]]] = Field(default_factory=dict)
