"""mcpbridge-claims: many workers resume the same paused call; exactly one runs it.

[plugins.claims]
url = "postgresql://app@db/app"    # or "redis://cache:6379/0"
ttl = 604800                       # seconds a claim is kept
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, Plugin, hookimpl, lazy_exports
from mcpbridge_claims.settings import ClaimsSettings, is_postgres, where

if TYPE_CHECKING:
    from mcpbridge_claims.postgres_store import PostgresClaims
    from mcpbridge_claims.redis_store import RedisClaims

# The stores import asyncio (~40 ms): on first use only, so that loading the plugin stays cheap.
__getattr__ = lazy_exports(
    __name__, {"PostgresClaims": "mcpbridge_claims.postgres_store", "RedisClaims": "mcpbridge_claims.redis_store"}
)

__all__ = ["PostgresClaims", "RedisClaims", "ClaimsSettings"]

mcpbridge_plugin = Plugin(settings=ClaimsSettings)


@hookimpl
def mcpbridge_claim_store(context: BridgeContext) -> PostgresClaims | RedisClaims | None:
    settings = context.settings_of(ClaimsSettings)
    if settings.url is None:
        return None
    if is_postgres(settings.url):
        from mcpbridge_claims.postgres_store import PostgresClaims

        return PostgresClaims(settings.url, ttl=settings.ttl, table=settings.table)
    from mcpbridge_claims.redis_store import RedisClaims

    return RedisClaims(settings.url, ttl=settings.ttl, key_prefix=settings.key_prefix)


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(ClaimsSettings)
    if settings.url is None:
        return "shares no claims: no `url` (each worker claims resumed calls in its own process)"
    return f"claims resumed calls in {where(settings.url)} (kept {settings.ttl:g} s)"
