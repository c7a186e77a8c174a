"""`[plugins.cache]`: what to cache, for how long, where, and who may share an entry."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mcpbridge import ToolSelector, ValueSource, redact_url


class Rule(ToolSelector):
    """One entry of `rules`: cache (or never cache) the tools it selects; the first rule that
    selects a call decides."""

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
    rules: list[Rule] = Field(default_factory=list)
    partition_by: list[ValueSource] = Field(default_factory=list)
    """Who may share an entry: every source must have the same value."""
    namespace: str = Field(default="mcpbridge:cache", pattern=r"^[A-Za-z0-9_.:-]+$")
    redis_timeout: float = Field(default=0.5, gt=0)
    redis_retry: float = Field(default=5.0, ge=0)
    """Seconds to go straight to the server after Redis failed, before trying it again."""

    @model_validator(mode="after")
    def _redis_needs_url(self) -> CacheSettings:
        if self.backend == "redis":
            if not self.redis_url:
                raise ValueError('backend = "redis" needs `redis_url` (e.g. "redis://127.0.0.1:6379/0")')
            if not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
                raise ValueError(
                    f"`redis_url` must start with redis://, rediss:// or unix://, not {redact_url(self.redis_url)!r}"
                )
        elif self.redis_url:
            raise ValueError('`redis_url` is set but backend is "memory": add backend = "redis" to use Redis')
        return self
