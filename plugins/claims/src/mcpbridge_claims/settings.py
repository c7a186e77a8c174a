"""`[plugins.claims]`: where workers claim resumed calls, and for how long."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

POSTGRES_SCHEMES = ("postgresql", "postgres")
REDIS_SCHEMES = ("redis", "rediss", "unix")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


class ClaimsSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, hide_input_in_errors=True)

    url: str | None = None
    """`postgresql://...` or `redis://...` (`rediss://`, `unix://`): shared by every worker.
    Without it the plugin provides no store (claims stay in each process)."""
    ttl: float = Field(default=7 * 24 * 3600.0, gt=0)
    """Seconds a claim is kept: a resume sent later than this after the first one runs again."""
    table: str = "mcpbridge_claims"
    """PostgreSQL table, created when missing."""
    key_prefix: str = "mcpbridge:claim:"
    """Prefix of the Redis keys."""

    @field_validator("url")
    @classmethod
    def _known_scheme(cls, url: str | None) -> str | None:
        if url is None:
            return None
        scheme = urlsplit(url).scheme
        if scheme not in POSTGRES_SCHEMES + REDIS_SCHEMES:
            raise ValueError(
                f"a claim store URL starts with postgresql:// or redis:// (rediss://, unix://), not {scheme or 'nothing'}://"
            )
        return url

    @field_validator("table")
    @classmethod
    def _identifier(cls, table: str) -> str:
        if not _IDENTIFIER.fullmatch(table):
            raise ValueError(f"{table!r} is not a plain SQL identifier (letters, digits, _; at most 63)")
        return table


def is_postgres(url: str) -> bool:
    return urlsplit(url).scheme in POSTGRES_SCHEMES


def where(url: str) -> str:
    """The store's host and database, without credentials, for status lines."""
    parts = urlsplit(url)
    host = f"{parts.hostname or 'localhost'}{f':{parts.port}' if parts.port else ''}"
    return f"{'PostgreSQL' if is_postgres(url) else 'Redis'} at {host}{parts.path}"
