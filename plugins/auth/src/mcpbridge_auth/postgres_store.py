"""Secrets in a PostgreSQL table, created when missing:
`mcpbridge_auth_secrets(key text primary key, value bytea not null, expires_at timestamptz)`.

`take` is `DELETE ... RETURNING` (the row lock makes one of concurrent takers get it);
expiry is the database's clock, the same for every worker; an expired row is never
returned, is removed when its key is next taken or stored, and at most once a minute per
store every expired row goes (`DELETE ... WHERE expires_at < now()`). Keys and values
arrive sealed (store.py). psycopg is imported on first use (`mcpbridge-auth[postgres]`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from typing import TYPE_CHECKING, Any, LiteralString

from mcpbridge import redact_url
from mcpbridge_auth.store import SecretStoreError, check_ttl

if TYPE_CHECKING:
    from psycopg import AsyncConnection

TABLE = "mcpbridge_auth_secrets"
SWEEP_EVERY = 60.0
"""Seconds between two removals of every expired row by one store."""

_CREATE = "CREATE TABLE IF NOT EXISTS {} (key text PRIMARY KEY, value bytea NOT NULL, expires_at timestamptz)"
_INDEX = "CREATE INDEX IF NOT EXISTS {} ON {} (expires_at)"
_GET = "SELECT value FROM {} WHERE key = %(key)s AND (expires_at IS NULL OR expires_at > now())"
_PUT = (
    "INSERT INTO {} (key, value, expires_at) "
    "VALUES (%(key)s, %(value)s, now() + %(ttl)s::float8 * interval '1 second') "
    "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at"
)
_TAKE = "DELETE FROM {} WHERE key = %(key)s RETURNING value, (expires_at IS NULL OR expires_at > now())"
_DELETE = "DELETE FROM {} WHERE key = %(key)s"
_SWEEP = "DELETE FROM {} WHERE expires_at < now()"


class _Line:
    """One connection of one event loop, and the lock that keeps its statements in turn."""

    def __init__(self) -> None:
        self.connection: AsyncConnection | None = None
        self.lock = asyncio.Lock()


class PostgresSecrets:
    """A plain `SecretStore` on PostgreSQL (autocommit: every statement is its own
    transaction); one connection per event loop, reopened after a failure."""

    def __init__(
        self, url: str, *, table: str = TABLE, timeout: float = 10.0, sweep_every: float = SWEEP_EVERY
    ) -> None:
        self.url = url
        self.table = table
        self.sweep_every = sweep_every
        self._shown_url = redact_url(url)  # never a password in errors
        self._timeout = timeout
        self._lines: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Line] = weakref.WeakKeyDictionary()
        self._swept = time.monotonic()

    async def get(self, key: str) -> bytes | None:
        row = await self._one("read a secret", _GET, {"key": key})
        return None if row is None else bytes(row[0])

    async def put(self, key: str, value: bytes, *, ttl: float | None = None) -> None:
        check_ttl(ttl)
        await self._one("store a secret", _PUT, {"key": key, "value": bytes(value), "ttl": ttl})
        if time.monotonic() - self._swept >= self.sweep_every:
            self._swept = time.monotonic()
            await self._one("remove expired secrets", _SWEEP, {})

    async def take(self, key: str) -> bytes | None:
        row = await self._one("take a secret", _TAKE, {"key": key})
        return bytes(row[0]) if row is not None and row[1] else None

    async def delete(self, key: str) -> None:
        await self._one("delete a secret", _DELETE, {"key": key})

    async def _one(self, what: str, statement: LiteralString, params: dict[str, Any]) -> tuple[Any, ...] | None:
        """Run `statement` (its `{}` is the table) on this loop's connection; its first row."""
        import psycopg
        from psycopg import sql

        line = self._line()
        async with line.lock:
            try:
                connection = await self._connect(line)
                cursor = await connection.execute(sql.SQL(statement).format(sql.Identifier(self.table)), params)
                return await cursor.fetchone() if cursor.description is not None else None
            except asyncio.CancelledError:
                await self._drop(line)  # a statement cut short leaves the connection in no known state
                raise
            except (psycopg.Error, OSError) as exc:
                await self._drop(line)  # a broken connection is opened afresh next time
                raise SecretStoreError(
                    f"mcpbridge-auth: PostgreSQL at {self._shown_url} could not {what} ({type(exc).__name__}: "
                    f"{exc}); check that it runs, that [plugins.auth] store points at it and that its user "
                    f"may create and write the table {self.table}"
                ) from exc

    def _line(self) -> _Line:
        loop = asyncio.get_running_loop()
        line = self._lines.get(loop)
        if line is None:
            line = self._lines[loop] = _Line()
        return line

    async def _connect(self, line: _Line) -> AsyncConnection:
        if line.connection is None or line.connection.closed:
            import psycopg
            from psycopg import sql

            connection = await psycopg.AsyncConnection.connect(
                self.url, autocommit=True, connect_timeout=max(1, round(self._timeout))
            )
            table = sql.Identifier(self.table)
            # Two workers creating the table at the same moment: one of them sees it exist.
            with contextlib.suppress(psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
                await connection.execute(sql.SQL(_CREATE).format(table))
            with contextlib.suppress(psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
                await connection.execute(sql.SQL(_INDEX).format(sql.Identifier(f"{self.table}_expires_at"), table))
            line.connection = connection
        return line.connection

    async def _drop(self, line: _Line) -> None:
        connection, line.connection = line.connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.close()

    async def aclose(self) -> None:
        """Close the connection of the running loop (others close with their loops)."""
        line = self._lines.pop(asyncio.get_running_loop(), None)
        if line is not None:
            async with line.lock:
                await self._drop(line)
