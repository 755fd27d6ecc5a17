"""The one SQLite connection every part of the store shares, and how it is written.

One SQLite file, one long-lived connection. Why the lock: aiosqlite runs every statement
on one worker thread, so two coroutines sharing the connection without a lock interleave
their statements and one game's writes land in another game's commit (or a commit lands
half-way through another game's transaction). Every transaction here takes the lock, so
each accepted move is exactly one commit of its own.

Durability: WAL with ``synchronous=FULL``: a commit that returned survives a power cut,
which is what lets the manager announce a move right after committing it.

The schema is the numbered SQL files in ``migrations/`` (next to this module) applied in
order; the number of the last one applied is ``PRAGMA user_version``. A database written
by an older version is upgraded in place, never dropped; one written by a newer version
is refused before anything is written to it.

The owners of the tables (``GameLog``, ``Standings``, ``Layout``) each hold this
``Connection``: they share its lock and its group commit.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
DEFAULT_PATH = Path("data") / "sequence.sqlite3"
T = TypeVar("T")


class StoreError(RuntimeError):
    """The database cannot be used as it is (the bot should stop and say why)."""


class SchemaTooNew(StoreError):
    """The database was written by a newer version of the bot than this one."""

    def __init__(self, path: Path, found: int, known: int) -> None:
        super().__init__(
            f"the database at {path} is at schema version {found} but this code knows only "
            f"up to {known}: upgrade the bot, or restore a backup")
        self.path = path
        self.found = found
        self.known = known


def migration_files(folder: Path = MIGRATIONS) -> list[tuple[int, Path]]:
    """The numbered migrations, in order; a gap or a duplicate number is a bug."""
    found: list[tuple[int, Path]] = []
    for path in folder.iterdir():
        m = _MIGRATION_NAME.match(path.name)
        if m:
            found.append((int(m.group(1)), path))
    found.sort()
    numbers = [n for n, _ in found]
    if numbers != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..n without gaps: {numbers}")
    return found


def dumps(value: Any) -> str:
    """JSON as the store writes it: compact and in a stable key order."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class Connection:
    """The shared connection: opening and migrating, the write lock, group commit, reads.

    Open with ``await Connection.open(path)``; always ``close()`` it (aiosqlite's worker
    thread is not a daemon: an open connection keeps the process alive)."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()
        self.schema_version = 0
        self.group_commit = True
        self._pending: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Task[None] | None = None

    # -- opening and closing ----------------------------------------------------------

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] = DEFAULT_PATH,
        *,
        busy_timeout_ms: int = 1000,
        upto: int | None = None,
        group_commit: bool = True,
    ) -> Connection:
        """Open (creating if needed, mode 0600) and migrate the database at ``path``.

        ``upto`` stops after that migration: only tests use it, to write an old database.
        Raises ``SchemaTooNew`` (before writing anything) for a database of a newer bot.
        """
        p = Path(path)
        if str(p) != ":memory:":
            p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not p.exists():
                # Owner-only from the first byte; SQLite gives -wal/-shm the same mode.
                os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = await aiosqlite.connect(str(p), isolation_level=None)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            # Read the version before any PRAGMA that writes (journal_mode = WAL does): a
            # newer bot's database is refused untouched.
            async with conn.execute("PRAGMA user_version") as cur:
                row = await cur.fetchone()
            found = int(row[0]) if row else 0
            known = len(migration_files())
            if found > known:
                raise SchemaTooNew(p, found, known)
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = FULL")
            await conn.execute("PRAGMA foreign_keys = ON")
            db = cls(conn, p)
            db.group_commit = group_commit
            await db._migrate(upto)
        except BaseException:
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        async with self._lock:
            await self._conn.close()

    async def _migrate(self, upto: int | None) -> None:
        async with self._lock:
            row = await self._fetchone("PRAGMA user_version")
            version = int(row[0]) if row else 0
            for number, path in migration_files():
                if number <= version or (upto is not None and number > upto):
                    continue
                log.info("migrating %s to schema %d (%s)", self.path, number, path.name)
                sql = path.read_text(encoding="utf-8")
                # One transaction per migration: it applies whole or not at all.
                await self._conn.executescript(
                    f"BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {number};\nCOMMIT;"
                )
                version = number
            self.schema_version = version

    async def pragma(self, name: str) -> Any:
        """The value of a PRAGMA (for tests and diagnostics)."""
        if not name.replace("_", "").isalpha():
            raise ValueError(f"not a pragma name: {name!r}")
        row = await self._fetchone(f"PRAGMA {name}")
        return row[0] if row else None

    # -- reading -----------------------------------------------------------------------

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        async with self._conn.execute(sql, params) as cur:
            return await cur.fetchone()

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """One row of a read, under the lock (never inside someone else's transaction)."""
        async with self._lock:
            return await self._fetchone(sql, params)

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of a read, under the lock."""
        async with self._lock:
            return list(await self._conn.execute_fetchall(sql, params))

    async def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` (reads only) in the connection's thread, in one hop."""

        def run() -> T:
            return work(self._conn._conn)

        async with self._lock:
            result: T = await self._conn._execute(run)  # type: ignore[no-untyped-call]
            return result

    # -- writing -----------------------------------------------------------------------

    async def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` atomically and durably; return when it is committed.

        Why not ``await db.execute(...)`` statement by statement: each await is a hop to
        aiosqlite's thread and back (0.2 to 1 ms on a busy machine), and a move is five
        statements. Here a transaction is one hop (``Connection._execute`` is aiosqlite's
        own queue; the version is pinned <0.23 in pyproject.toml).

        Group commit: writes that arrive while a commit is in progress wait and then go
        together in the next transaction, one SAVEPOINT each, so one fsync makes a whole
        batch durable. Each write still applies whole or not at all, and one that fails
        is rolled back to its savepoint without touching the others. Nobody hears of a
        write before the COMMIT that contains it returned.
        """
        if not self.group_commit:
            async with self._lock:
                outcome = await self._conn._execute(  # type: ignore[no-untyped-call]
                    _run_batch, self._conn._conn, [work])
            single: T = _unwrap(outcome[0])
            return single
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_writes())
        result: T = await future
        return result

    async def _flush_writes(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                async with self._lock:
                    outcomes = await self._conn._execute(  # type: ignore[no-untyped-call]
                        _run_batch, self._conn._conn, [w for w, _ in batch])
            except BaseException as exc:  # the COMMIT itself failed: nothing is durable
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if isinstance(outcome, _Failed):
                    future.set_exception(outcome.error)
                else:
                    future.set_result(outcome)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One serialised write transaction: commit on success, roll back on error."""
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")


@dataclass(frozen=True)
class _Failed:
    error: BaseException


def _unwrap(outcome: Any) -> Any:
    if isinstance(outcome, _Failed):
        raise outcome.error
    return outcome


def _run_batch(
    db: sqlite3.Connection, works: list[Callable[[sqlite3.Connection], Any]]
) -> list[Any]:
    """In aiosqlite's thread: one transaction, each write in its own savepoint."""
    outcomes: list[Any] = []
    db.execute("BEGIN IMMEDIATE")
    try:
        for work in works:
            db.execute("SAVEPOINT write")
            try:
                outcomes.append(work(db))
            except Exception as exc:
                db.execute("ROLLBACK TO write")
                outcomes.append(_Failed(exc))
            db.execute("RELEASE write")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return outcomes
