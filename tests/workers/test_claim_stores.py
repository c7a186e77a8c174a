"""The shared claim stores against real PostgreSQL and Redis: the first owner wins, the same
owner may claim again, others are refused until the claim expires, and of many workers
claiming at once exactly one wins."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable

import pytest
from mcpbridge_claims import ClaimsSettings, PostgresClaims, RedisClaims

from mcpbridge import ConfigError, MCPBridge
from tests.helpers import service_url

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

Store = PostgresClaims | RedisClaims


@pytest.fixture(params=["postgres", "redis"])
async def make_store(request: pytest.FixtureRequest) -> AsyncIterator[Callable[..., Store]]:
    made: list[Store] = []

    def make(ttl: float = 60.0) -> Store:
        store: Store
        if request.param == "postgres":
            url = service_url("MCPBRIDGE_TEST_POSTGRES_URL", "PostgreSQL")
            store = PostgresClaims(url, ttl=ttl, table="mcpbridge_claims_test")
        else:
            url = service_url("MCPBRIDGE_TEST_REDIS_URL", "Redis")
            store = RedisClaims(url, ttl=ttl, key_prefix="mcpbridge-test:claim:")
        made.append(store)
        return store

    yield make
    for store in made:
        await store.aclose()


async def test_first_owner_wins_and_may_claim_again(make_store: Callable[..., Store]) -> None:
    store = make_store()
    key = uuid.uuid4().hex
    assert await store.claim(key, "worker-1") == "worker-1"
    assert await store.claim(key, "worker-1") == "worker-1"
    assert await store.claim(key, "worker-2") == "worker-1"
    assert await make_store().claim(key, "worker-3") == "worker-1"  # another connection sees it too


async def test_only_the_owner_releases_a_claim(make_store: Callable[..., Store]) -> None:
    store = make_store()
    key = uuid.uuid4().hex
    assert await store.claim(key, "worker-1") == "worker-1"
    await store.release(key, "worker-2")
    assert await store.claim(key, "worker-2") == "worker-1"
    await store.release(key, "worker-1")
    assert await store.claim(key, "worker-2") == "worker-2"


async def test_an_expired_claim_is_taken_over(make_store: Callable[..., Store]) -> None:
    store = make_store(ttl=1)
    key = uuid.uuid4().hex
    assert await store.claim(key, "worker-1") == "worker-1"
    await asyncio.sleep(1.1)
    assert await store.claim(key, "worker-2") == "worker-2"


async def test_of_many_claiming_at_once_one_wins(make_store: Callable[..., Store]) -> None:
    stores = [make_store() for _ in range(8)]
    key = uuid.uuid4().hex
    holders = await asyncio.gather(*(store.claim(key, f"worker-{i}") for i, store in enumerate(stores)))
    assert len(set(holders)) == 1
    assert holders[0] in {f"worker-{i}" for i in range(8)}


async def test_a_store_reconnects_after_closing(make_store: Callable[..., Store]) -> None:
    store = make_store()
    key = uuid.uuid4().hex
    assert await store.claim(key, "worker-1") == "worker-1"
    await store.aclose()
    assert await store.claim(key, "worker-2") == "worker-1"


def claims_bridge(**settings: object) -> MCPBridge:
    return MCPBridge({}, plugins=["claims"], plugin_settings={"claims": settings})


def test_settings_refuse_an_unknown_scheme_and_a_bad_table() -> None:
    with pytest.raises(ConfigError, match=r"`plugins.claims.url`: a claim store URL starts with postgresql://"):
        claims_bridge(url="mysql://db/app")
    with pytest.raises(ConfigError, match=r"`plugins.claims.table`: 'x; drop' is not a plain SQL identifier"):
        claims_bridge(url="postgresql://db/app", table="x; drop")


def test_the_plugin_provides_a_store_only_with_a_url() -> None:
    assert isinstance(claims_bridge(url="redis://r/0").claims, RedisClaims)
    unset = MCPBridge({}, plugins=["claims"])
    assert not isinstance(unset.claims, PostgresClaims | RedisClaims)
    assert unset._host.status() == {
        "claims": "shares no claims: no `url` (each worker claims resumed calls in its own process)"
    }
    with_password = claims_bridge(url="postgresql://app:s3cret@db.internal:5433/app", ttl=60)
    assert with_password._host.status() == {
        "claims": "claims resumed calls in PostgreSQL at db.internal:5433/app (kept 60 s)"
    }
    assert ClaimsSettings(url="postgres://db/app").url == "postgres://db/app"
