"""`[plugins.cache]`: what to cache (opt-in rules), for how long, where, and who may share an entry."""

from __future__ import annotations

from typing import Literal
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from mcpbridge import ToolSelector, ValueSource, redact_url


class Rule(ToolSelector):
    """One entry of `rules`: cache (or never cache) the tools it selects; the first rule that
    selects a call decides."""

    ttl: float | None = Field(default=None, gt=0)
    cache: bool = True
    """`false` keeps a tool out of the cache."""

    @property
    def exact(self) -> bool:
        """`tool` names one tool (no glob characters): the user vouches that it only reads."""
        return not any(char in self.tool for char in "*?[")


class CacheSettings(BaseModel):
    """The plugin's settings; every key has a default, so an empty table is valid (and
    caches nothing)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Literal["memory", "redis"] = "memory"
    redis_url: str | None = None
    secret: SecretStr | None = None
    """Key of the HMAC of entry keys; required with Redis, random per process otherwise."""
    ttl: float = Field(default=300.0, gt=0)
    max_entries: int = Field(default=1024, gt=0)
    max_entry_bytes: int = Field(default=4 * 1024 * 1024, gt=0)
    """A result whose entry is larger is not cached; a larger entry found in Redis is a miss,
    never decoded (decoding blocks the event loop for as long as it takes)."""
    rules: list[Rule] = Field(default_factory=list)
    invalidate: Literal["partition", "server", "off"] = "partition"
    """What a call of a tool that is not read-only invalidates, before and after it runs."""
    partition_by: list[ValueSource] = Field(default_factory=list)
    """Run values that do not reach the server but must still keep callers apart."""
    namespace: str = Field(default="mcpbridge:cache", pattern=r"^[A-Za-z0-9_.:-]+$")
    redis_timeout: float = Field(default=0.5, gt=0)
    redis_retry: float = Field(default=5.0, ge=0)
    """Seconds to go straight to the server after Redis failed, before trying it again."""
    flight_wait: float = Field(default=10.0, ge=0)
    """Seconds a call waits for an identical call another process is making."""
    flight_lease: float = Field(default=5.0, gt=0)
    """Seconds after which another process takes over the call of a leader that died."""

    @model_validator(mode="after")
    def _redis_needs_url_and_secret(self) -> CacheSettings:
        if self.backend == "redis":
            if not self.redis_url:
                raise ValueError('backend = "redis" needs `redis_url` (e.g. "redis://127.0.0.1:6379/0")')
            if not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
                raise ValueError(
                    f"`redis_url` must start with redis://, rediss:// or unix://, not {redact_url(self.redis_url)!r}"
                )
            if any(name.lower() == "decode_responses" for name in parse_qs(urlsplit(self.redis_url).query)):
                raise ValueError(
                    "`redis_url` sets decode_responses: the cache reads Redis replies as bytes (an entry need not "
                    "be UTF-8); remove it from the URL"
                )
            if self.secret is None or not self.secret.get_secret_value():
                raise ValueError(
                    'backend = "redis" needs `secret`: a random string shared by every process that shares the '
                    'cache, e.g. secret = "${MCPBRIDGE_CACHE_SECRET}"'
                )
        elif self.redis_url:
            raise ValueError('`redis_url` is set but backend is "memory": add backend = "redis" to use Redis')
        return self
