"""The store's transactions, timed for whoever watches the bot (its metrics).

The store's owners (``GameLog``, ``Standings``, ``Layout``, ``Posted``) hold a ``Watched``
database instead of the backend itself: it passes every call on unchanged and, when a
``TransactionWatch`` is set (``Store.watch``), tells it how long each write and read took
from the caller's side (a SQLite write's wait for its group commit and a PostgreSQL
pool's wait for a connection included: what a move waits for) and whether it failed. No
watch set: one ``is None`` test per call. The backends themselves know nothing of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol, TypeVar

from .backend import Database, Row, Tx

T = TypeVar("T")


class TransactionWatch(Protocol):
    """Told of every transaction of the store's owners once it is over."""

    def transaction(self, op: str, seconds: float, error: Exception | None) -> None:
        """``op``: "write" (a change, committed or not) or "read"; ``error``: what it
        raised (None: it went through). A cancelled one is not told."""


class Watched:
    """A ``Database`` that times each transaction for a ``TransactionWatch``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.watch: TransactionWatch | None = None
        self.backend = db.backend
        self.shared = db.shared
        self.lock_rows, self.lock_free_rows = db.lock_rows, db.lock_free_rows
        self.schema_version = db.schema_version  # (migrated before the store is made)
        self.outages = db.outages

    async def write(self, work: Callable[[Tx], Coroutine[Any, Any, T]], *,
                    durable: bool = True) -> T:
        return await self._timed("write", self._db.write(work, durable=durable))

    async def read(self, work: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        return await self._timed("read", self._db.read(work))

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        return await self._timed("read", self._db.fetchone(sql, params))

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self._timed("read", self._db.fetchall(sql, params))

    async def live_processes(self) -> int:
        return await self._db.live_processes()

    async def close(self) -> None:
        await self._db.close()

    async def _timed(self, op: str, call: Coroutine[Any, Any, T]) -> T:
        watch = self.watch
        if watch is None:
            return await call
        began = time.perf_counter()
        try:
            result = await call
        except Exception as exc:
            watch.transaction(op, time.perf_counter() - began, exc)
            raise
        watch.transaction(op, time.perf_counter() - began, None)
        return result
