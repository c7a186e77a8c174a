"""The `[plugins.retry]` table: defaults, then per-server and per-tool overrides."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Overrides(BaseModel):
    """Keys any level may set; an unset key inherits from the level above."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = None
    attempts: int | None = Field(default=None, ge=1, le=100)
    initial: float | None = Field(default=None, ge=0)
    max: float | None = Field(default=None, ge=0)
    max_elapsed: float | None = Field(default=None, gt=0)
    on_timeout: bool | None = None
    error_patterns: list[str] | None = None
    idempotent: bool | None = None

    @field_validator("error_patterns")
    @classmethod
    def _compiles(cls, patterns: list[str] | None) -> list[str] | None:
        for pattern in patterns or ():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None
        return patterns


class ServerOverrides(Overrides):
    tools: dict[str, Overrides] = Field(default_factory=dict)
    """Keyed by the server's own MCP tool name (never the prefixed display name)."""


class RetrySettings(ServerOverrides):
    servers: dict[str, ServerOverrides] = Field(default_factory=dict)


_KEYS = set(Overrides.model_fields)
"""The keys every level may set (not `tools` / `servers`)."""


@dataclass(frozen=True, slots=True)
class Policy:
    """The settings in force for one (server, MCP tool name)."""

    enabled: bool = True
    attempts: int = 3
    initial: float = 0.2
    max: float = 5.0
    max_elapsed: float = 30.0
    on_timeout: bool = True
    error_patterns: tuple[re.Pattern[str], ...] = ()
    idempotent: bool | None = None
    """None: decided by the tool's annotations."""


def resolve(settings: RetrySettings, server: str, tool: str) -> Policy:
    """Defaults ← `[plugins.retry]` ← `servers.<server>` ← `servers.<server>.tools.<tool>`."""
    server_level = settings.servers.get(server)
    levels: list[Overrides] = [settings]
    if server_level is not None:
        levels += [server_level, *([server_level.tools[tool]] if tool in server_level.tools else [])]
    merged: dict[str, Any] = {}
    for level in levels:
        merged.update(level.model_dump(include=_KEYS, exclude_none=True))
    merged["error_patterns"] = tuple(re.compile(p) for p in merged.get("error_patterns", ()))
    return Policy(**merged)
