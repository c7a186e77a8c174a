"""Claims in a PostgreSQL table: one row per claimed call, taken over only once expired."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, LiteralString

if TYPE_CHECKING:
    from psycopg import AsyncConnection

_CREATE = "CREATE TABLE IF NOT EXISTS {} (key text PRIMARY KEY, owner text NOT NULL, expires_at timestamptz NOT NULL)"
_CLAIM = (
    "INSERT INTO {} AS held (key, owner, expires_at) "
    "VALUES (%(key)s, %(owner)s, now() + %(ttl)s * interval '1 second') "
    "ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at "
    "WHERE held.expires_at < now() OR held.owner = EXCLUDED.owner "
    "RETURNING owner"
)
_HOLDER = "SELECT owner FROM {} WHERE key = %(key)s"
_RELEASE = "DELETE FROM {} WHERE key = %(key)s AND owner = %(owner)s RETURNING owner"


class PostgresClaims:
    """`INSERT ... ON CONFLICT`: atomic across workers; the table is created when missing.
    psycopg is imported on the first claim (install `mcpbridge-claims[postgres]`)."""

    def __init__(self, url: str, *, ttl: float, table: str) -> None:
        self.url = url
        self.ttl = ttl
        self.table = table
        self._connection: AsyncConnection | None = None
        self._lock: asyncio.Lock | None = None

    async def claim(self, key: str, owner: str) -> str:
        params = {"key": key, "owner": owner, "ttl": self.ttl}
        row = await self._one(_CLAIM, params) or await self._one(_HOLDER, params)
        return str(row[0]) if row is not None else "another worker (its claim just expired)"

    async def release(self, key: str, owner: str) -> None:
        await self._one(_RELEASE, {"key": key, "owner": owner})

    async def _one(self, statement: LiteralString, params: dict[str, Any]) -> tuple[Any, ...] | None:
        """Run `statement` (its `{}` is the table) on the one connection; its first row."""
        from psycopg import sql

        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            connection = await self._connect()
            try:
                cursor = await connection.execute(sql.SQL(statement).format(sql.Identifier(self.table)), params)
                return await cursor.fetchone()
            except Exception:
                await self.aclose()  # a broken connection is opened afresh next time
                raise

    async def _connect(self) -> AsyncConnection:
        if self._connection is None or self._connection.closed:
            import psycopg
            from psycopg import sql

            connection = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
            # Two workers creating the table at the same moment: one of them sees it exist.
            with contextlib.suppress(psycopg.errors.UniqueViolation, psycopg.errors.DuplicateTable):
                await connection.execute(sql.SQL(_CREATE).format(sql.Identifier(self.table)))
            self._connection = connection
        return self._connection

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        self._lock = None
        if connection is not None:
            await connection.close()
