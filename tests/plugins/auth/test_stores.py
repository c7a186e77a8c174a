"""The sign-in secret store on each backend (memory, a real Redis, a real PostgreSQL): round
trips, expiry, one-shot takes raced by two workers, encryption at rest, wrong keys, key
rotation and configuration errors."""

from __future__ import annotations

import asyncio
import logging
import secrets
import sys
import threading
from collections.abc import AsyncIterator, Awaitable

import psycopg
import pytest
from mcpbridge_auth.postgres_store import TABLE, PostgresSecrets
from mcpbridge_auth.redis_store import PREFIX
from mcpbridge_auth.store import MemoryStore, SealedStore, SecretStoreError, open_store
from redis.asyncio import Redis

from mcpbridge import ConfigError
from tests.helpers import service_url
from tests.helpers.waiting import until

pytestmark = pytest.mark.serial

TOKEN = b'{"access_token": "at-plaintext-4f1c", "refresh_token": "rt-plaintext-9d2e"}'
USER = "user-alice@example.com"


class Backend:
    """One kind of store, and a look at what it holds (for Redis and PostgreSQL: raw)."""

    def __init__(self, kind: str, url: str = "") -> None:
        self.kind, self.url = kind, url  # no url: memory
        self.opened: list[SealedStore] = []
        self.memory = MemoryStore()

    def open(self, secret: str) -> SealedStore:
        """A store (a "worker"); in memory, the workers of a test share one process's dict."""
        if self.kind == "memory":
            return self._opened(SealedStore(self.memory, [part.strip() for part in secret.split(",")]))
        return self._opened(open_store(self.url, secret))

    def _opened(self, store: object) -> SealedStore:
        assert isinstance(store, SealedStore)
        self.opened.append(store)
        return store

    async def raw(self, name: str) -> bytes | None:
        """What the store holds under the hidden name `name`, read around the store."""
        if self.kind == "redis":
            async with Redis.from_url(self.url) as client:
                found = await client.get(PREFIX + name)
                assert found is None or isinstance(found, bytes)
                return found
        if self.kind == "postgres":
            async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as connection:
                cursor = await connection.execute(f"SELECT value FROM {TABLE} WHERE key = %s", (name,))
                row = await cursor.fetchone()
                return None if row is None else bytes(row[0])
        return await self.memory.get(name)

    async def everything(self) -> bytes:
        """Every key and value the store holds, as one text to search."""
        if self.kind == "redis":
            async with Redis.from_url(self.url) as client:
                names = [name async for name in client.scan_iter(match=PREFIX + "*")]
                values = [await client.get(name) for name in names]
                return b"\n".join(bytes(part) for part in [*names, *values] if part is not None)
        if self.kind == "postgres":
            async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as connection:
                cursor = await connection.execute(f"SELECT key, value FROM {TABLE}")
                return b"\n".join(key.encode() + b"\n" + bytes(value) for key, value in await cursor.fetchall())
        entries = self.memory._entries  # a look inside the dict
        return b"\n".join(name.encode() + b"\n" + value for name, (value, _) in entries.items())


@pytest.fixture(params=["memory", "redis", "postgres"])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    url = ""
    if request.param == "redis":
        url = service_url("MCPBRIDGE_TEST_REDIS_URL", "a redis-server for the Redis tests")
    elif request.param == "postgres":
        url = service_url("MCPBRIDGE_TEST_POSTGRES_URL", "PostgreSQL (`bash tests/services/postgres.sh start`)")
    made = Backend(request.param, url)
    yield made
    for store in made.opened:
        await store.aclose()


@pytest.fixture
def secret() -> str:
    """A fresh secret per test: the hidden names differ, so tests never see each other's entries."""
    return secrets.token_urlsafe(32)


async def test_a_value_comes_back_as_it_was_put_and_is_replaced_and_deleted(backend: Backend, secret: str) -> None:
    store = backend.open(secret)
    assert await store.get(USER) is None
    await store.put(USER, TOKEN)
    assert await store.get(USER) == TOKEN
    assert await store.get(USER) == TOKEN  # a get leaves it in place
    await store.put(USER, b"newer", ttl=60)
    assert await store.get(USER) == b"newer"
    await store.put(USER, b"")  # an empty value is a value
    assert await store.get(USER) == b""
    await store.delete(USER)
    assert await store.get(USER) is None
    await store.delete(USER)  # deleting what is absent is no error


async def test_a_value_expires_after_its_ttl(backend: Backend, secret: str) -> None:
    store = backend.open(secret)
    await store.put("state-short", b"verifier", ttl=0.3)
    await store.put("state-long", b"verifier", ttl=60)
    await store.put(USER, TOKEN)  # no ttl: kept
    await until(lambda: _none(store.get("state-short")), "expiry after 0.3 s")
    assert await store.take("state-short") is None
    assert await store.get("state-long") == b"verifier"
    assert await store.get(USER) == TOKEN
    if backend.kind == "redis":
        async with Redis.from_url(backend.url) as client:
            assert 0 < await client.pttl(PREFIX + store.names("state-long")[0]) <= 60_000
            assert await client.pttl(PREFIX + store.names(USER)[0]) == -1


async def _none(found: Awaitable[bytes | None]) -> bool:
    return await found is None


async def test_an_expired_row_is_never_returned_even_while_it_is_still_stored() -> None:
    url = service_url("MCPBRIDGE_TEST_POSTGRES_URL", "PostgreSQL (`bash tests/services/postgres.sh start`)")
    store = open_store(url, secrets.token_urlsafe(32))
    assert isinstance(store, SealedStore)
    try:
        await store.put("state", b"verifier", ttl=0.2)
        name = store.names("state")[0]
        await until(lambda: _none(store.get("state")), "expiry after 0.2 s")
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
            cursor = await connection.execute(f"SELECT count(*) FROM {TABLE} WHERE key = %s", (name,))
            assert await cursor.fetchone() == (1,)  # still there: only never handed out
        assert await store.take("state") is None
        assert await Backend("postgres", url).raw(name) is None  # the take removed it
    finally:
        await store.aclose()


async def test_expired_rows_are_swept_from_the_table() -> None:
    url = service_url("MCPBRIDGE_TEST_POSTGRES_URL", "PostgreSQL (`bash tests/services/postgres.sh start`)")
    store = SealedStore(PostgresSecrets(url, sweep_every=0), [secrets.token_urlsafe(32)])
    look = Backend("postgres", url)
    try:
        await store.put("state-old", b"verifier", ttl=0.2)
        await until(lambda: _none(store.get("state-old")), "expiry after 0.2 s")
        assert await look.raw(store.names("state-old")[0]) is not None  # expired, not yet removed
        await store.put("state-new", b"verifier", ttl=60)  # a put sweeps (here: every put)
        assert await look.raw(store.names("state-old")[0]) is None
        assert await store.get("state-new") == b"verifier"
    finally:
        await store.aclose()


def test_of_takers_on_threads_sharing_a_memory_store_exactly_one_gets_the_value() -> None:
    """Bridges run from sync code each have a loop thread; they may share one memory store."""
    store = open_store("memory", None)

    def take(start: threading.Barrier, got: list[bytes | None]) -> None:
        start.wait()
        got.append(asyncio.run(store.take("state")))

    for round_ in range(20):
        asyncio.run(store.put("state", b"verifier", ttl=60))
        start, got = threading.Barrier(8), list[bytes | None]()
        threads = [threading.Thread(target=take, args=(start, got)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [found for found in got if found is not None] == [b"verifier"], f"round {round_}"


async def test_a_take_gives_the_value_once(backend: Backend, secret: str) -> None:
    store = backend.open(secret)
    await store.put("state-1", b"verifier", ttl=60)
    assert await store.take("state-1") == b"verifier"
    assert await store.take("state-1") is None
    assert await store.get("state-1") is None
    assert await store.take("never-put") is None


async def test_of_many_concurrent_takers_on_two_workers_exactly_one_gets_the_value(
    backend: Backend, secret: str
) -> None:
    first, second = backend.open(secret), backend.open(secret)
    for round_ in range(10):
        state = f"state-{round_}"
        await first.put(state, b"verifier-%d" % round_, ttl=60)
        takers = [(first if i % 2 else second).take(state) for i in range(16)]
        taken = [found for found in await asyncio.gather(*takers) if found is not None]
        assert taken == [b"verifier-%d" % round_], f"round {round_}: {len(taken)} takers got the value"


async def test_keys_and_values_are_unreadable_in_the_store(backend: Backend, secret: str) -> None:
    store = backend.open(secret)
    await store.put(USER, TOKEN, ttl=60)
    await store.put("state-8c1f2e", b"code-verifier-plaintext", ttl=60)
    held = await backend.everything()
    raw = await backend.raw(store.names(USER)[0])
    assert raw is not None
    assert raw != TOKEN
    for plain in (TOKEN, b"at-plaintext-4f1c", b"rt-plaintext-9d2e", USER.encode(), b"alice", b"8c1f2e", b"verifier"):
        assert plain not in held
    assert secret.encode() not in held
    assert len(store.names(USER)[0]) == 64
    assert store.names(USER) != store.names("state-8c1f2e")


async def test_a_value_that_does_not_decrypt_is_absent_and_warned_about_without_key_material(
    backend: Backend, secret: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    store, other_secret = backend.open(secret), secrets.token_urlsafe(32)
    other = backend.open(other_secret)
    await store.put(USER, TOKEN, ttl=60)
    assert await other.get(USER) is None  # another key: other names, nothing found
    # Under the very name, a value sealed with another key, then a value altered in the store.
    await store.backend.put(store.names(USER)[0], other.seal(TOKEN), ttl=60)
    assert await store.get(USER) is None
    assert "does not decrypt" in caplog.text
    sealed = store.seal(TOKEN)
    await store.backend.put(store.names(USER)[0], sealed[:-8] + b"AAAAAAAA", ttl=60)
    assert await store.take(USER) is None
    assert await store.get(USER) is None  # the take removed what did not decrypt
    assert caplog.text.count("does not decrypt") == 2
    for material in (secret, other_secret, USER, TOKEN.decode(), "at-plaintext", store.names(USER)[0]):
        assert material not in caplog.text


async def test_rotated_keys_still_open_what_the_older_key_sealed(backend: Backend) -> None:
    old_key, new_key = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    old = backend.open(old_key)
    await old.put(USER, TOKEN, ttl=60)
    await old.put("state", b"verifier", ttl=60)
    rotated = backend.open(f"{new_key}, {old_key}")
    assert await rotated.get(USER) == TOKEN
    assert await rotated.take("state") == b"verifier"
    assert await old.get("state") is None
    await rotated.put(USER, b"refreshed", ttl=60)  # stored under the new key; the old entry goes
    assert await backend.raw(old.names(USER)[0]) is None
    assert await rotated.get(USER) == b"refreshed"
    assert await old.get(USER) is None  # a worker still on the old key alone cannot read it
    assert await backend.open(new_key).get(USER) == b"refreshed"  # the old key can be dropped
    await rotated.delete(USER)
    assert await backend.open(new_key).get(USER) is None


async def test_a_ttl_must_be_positive(backend: Backend, secret: str) -> None:
    store = backend.open(secret)
    for ttl in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="positive number of seconds"):
            await store.put(USER, TOKEN, ttl=ttl)
    assert await store.get(USER) is None


@pytest.mark.parametrize(
    "url", ["http://example.com/store", "sqlite:///tokens.db", "redis", "mysql://u:pw@h/db", "pw is here://x"]
)
def test_an_unknown_store_is_a_config_error_naming_the_accepted_forms(url: str) -> None:
    with pytest.raises(ConfigError, match=r"\[plugins.auth\] store must be") as raised:
        open_store(url, "a-secret")
    assert "redis://" in str(raised.value)
    assert "postgresql://" in str(raised.value)
    assert "pw" not in str(raised.value)
    assert "example.com" not in str(raised.value)


@pytest.mark.parametrize(
    ("url", "driver", "extra"),
    [
        ("redis://h/0", "redis", "redis"),
        ("postgresql://h/d", "psycopg", "postgres"),
        ("postgres://h/d", "psycopg", "postgres"),
    ],
)
def test_a_shared_store_without_its_driver_is_a_config_error_naming_the_extra(
    url: str, driver: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [name for name in sys.modules if name == driver or name.startswith(driver + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, driver, None)  # `import redis` raises ImportError, as when not installed
    with pytest.raises(ConfigError, match=rf"`{driver}` is not installed: install `mcpbridge-auth\[{extra}\]`"):
        open_store(url, "a-secret")


@pytest.mark.parametrize("url", ["redis://:hunter2@127.0.0.1:6379/0", "rediss://h/0", "postgresql://u:hunter2@h/d"])
@pytest.mark.parametrize("secret", [None, "", " , "])
def test_a_shared_store_without_a_key_is_a_config_error_saying_how_to_make_one(url: str, secret: str | None) -> None:
    with pytest.raises(ConfigError, match=r"\[plugins.auth\] key is missing") as raised:
        open_store(url, secret)
    assert "secrets.token_urlsafe(32)" in str(raised.value)
    assert "hunter2" not in str(raised.value)


def test_a_redis_url_that_decodes_replies_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="decode_responses") as raised:
        open_store("redis://:hunter2@127.0.0.1:6379/0?decode_responses=True", "a-secret")
    assert "hunter2" not in str(raised.value)


async def test_memory_needs_no_key_and_keeps_values_per_process() -> None:
    first, second = open_store(None, None), open_store(" Memory ", None)
    await first.put(USER, TOKEN)
    assert await first.get(USER) == TOKEN
    assert await second.get(USER) is None  # another store: another dict, another random key


@pytest.mark.parametrize(
    ("url", "fix"),
    [
        ("redis://:hunter2@127.0.0.1:1/0", "check that it runs"),
        ("postgresql://u:hunter2@127.0.0.1:1/d", "check that it runs"),
    ],
)
async def test_an_unreachable_store_is_an_error_naming_it_without_credentials(url: str, fix: str) -> None:
    store = open_store(url, "a-secret")
    try:
        with pytest.raises(SecretStoreError, match=fix) as raised:
            await store.put(USER, TOKEN)
        assert "hunter2" not in str(raised.value)
        assert "127.0.0.1" in str(raised.value)
        assert USER not in str(raised.value)
        assert "at-plaintext" not in str(raised.value)
        with pytest.raises(SecretStoreError):
            await store.get(USER)
    finally:
        await store.aclose()
