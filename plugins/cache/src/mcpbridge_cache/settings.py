"""`[plugins.cache]`: what to cache, for how long, where, and who may share an entry."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SOURCE_PATTERN = re.compile(r"^(?:(?:context|state|config)(?:\.[A-Za-z_][A-Za-z0-9_-]*)+|header\.[A-Za-z0-9_-]+)$")
"""An identity source: `context.<path>`, `state.<path>`, `config.<path>` (fields of the
LangGraph ToolRuntime) or `header.<name>` (a header already on the request)."""


class ToolRule(BaseModel):
    """One entry of `tools`: cache (or never cache) one tool of one server."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str = Field(min_length=1)
    tool: str = Field(min_length=1)
    """The server's own MCP tool name (never the prefixed display name), or `*` for all."""
    ttl: float | None = Field(default=None, gt=0)
    cache: bool = True
    """`false` keeps a read-only tool out of the cache."""


class CacheSettings(BaseModel):
    """The plugin's settings; every key has a default, so an empty table is valid."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Literal["memory", "redis"] = "memory"
    redis_url: str | None = None
    ttl: float = Field(default=300.0, gt=0)
    max_entries: int = Field(default=1024, gt=0)
    read_only: bool = True
    """Cache every tool whose annotations say `readOnlyHint: true`."""
    tools: list[ToolRule] = Field(default_factory=list)
    partition_by: list[str] = Field(default_factory=list)
    namespace: str = Field(default="mcpbridge:cache", pattern=r"^[A-Za-z0-9_.:-]+$")
    redis_timeout: float = Field(default=0.5, gt=0)
    redis_retry: float = Field(default=5.0, ge=0)
    """Seconds to go straight to the server after Redis failed, before trying it again."""

    @field_validator("partition_by")
    @classmethod
    def _known_sources(cls, sources: list[str]) -> list[str]:
        for source in sources:
            if not SOURCE_PATTERN.match(source):
                raise ValueError(
                    f"{source!r} is not an identity source: use `context.<field>`, `state.<field>`, "
                    "`config.<path>` (e.g. `config.configurable.user_id`) or `header.<name>`"
                )
        return sources

    @model_validator(mode="after")
    def _redis_needs_url(self) -> CacheSettings:
        if self.backend == "redis":
            if not self.redis_url:
                raise ValueError('backend = "redis" needs `redis_url` (e.g. "redis://127.0.0.1:6379/0")')
            if not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
                raise ValueError(
                    f"`redis_url` must start with redis://, rediss:// or unix://, not {redacted_url(self.redis_url)!r}"
                )
        elif self.redis_url:
            raise ValueError('`redis_url` is set but backend is "memory": add backend = "redis" to use Redis')
        return self


def redacted_url(url: str) -> str:
    """`url` with its password (`:password@` or `?password=`) hidden, for logs and errors."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if parts.password is None and not any(name == "password" for name, _ in query):
        return url
    netloc = parts.netloc
    if parts.password is not None:
        netloc = f"{parts.username or ''}:***@{netloc.rpartition('@')[2]}"
    shown = "&".join(f"{name}=***" if name == "password" else f"{name}={value}" for name, value in query)
    return urlunsplit(parts._replace(netloc=netloc, query=shown))
