"""The SQLite backend: the one connection every part of the store shares, and how it is
written. (The PostgreSQL backend is ``postgres.py``; both implement
``backend.Database``.)

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
``SQLiteDatabase``: they share its lock and its group commit. Their writes are
``async def work(tx)`` functions (see ``backend.py``); here ``tx`` is ``SQLiteTx``, whose
methods never suspend, so a whole write still runs in aiosqlite's thread in one hop.

A file that cannot be written for a while (its disk full, the file or its file system
read-only, another program holding the write lock beyond the busy timeout) is not a bug:
the write's transaction is rolled back whole (SQLite may already have rolled it back
itself: a full disk does), the caller gets ``StoreUnavailable``, and ``outages`` says it
in the log once, and once again when a write succeeds. The file stays as the last
successful commit left it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from .backend import (
    IntegrityError,
    Row,
    SchemaTooNew,
    Tx,
    migration_files,
    run_without_suspending,
    said_as_outages,
)
from .outages import RETRY_EVERY, Outages

log = logging.getLogger(__name__)

DEFAULT_PATH = Path("data") / "sequence.sqlite3"
T = TypeVar("T")

DISK_FULL = "the disk is full"
READ_ONLY = "the file is read-only"
#: The faults that last until a write works again: nothing else (a read, the health
#: check's ``SELECT 1``, which writes nothing) can tell that they are over.
WRITE_FAULTS = (DISK_FULL, READ_ONLY)

#: SQLite's result codes (``sqlite3.Error.sqlite_errorname``, extended codes included)
#: that mean the file cannot be written for a while, and how the log says it.
_UNAVAILABLE = (
    ("SQLITE_FULL", DISK_FULL),
    ("SQLITE_READONLY", READ_ONLY),
    ("SQLITE_BUSY", "another program holds the write lock"),
    ("SQLITE_LOCKED", "another program holds the write lock"),
    ("SQLITE_IOERR", "a disk I/O error"),
    ("SQLITE_CANTOPEN", "the file cannot be opened"),
)


def unavailable_reason(exc: BaseException) -> str | None:
    """A few words for the log if ``exc`` says the file cannot be written for a while,
    else None."""
    if not isinstance(exc, sqlite3.OperationalError | sqlite3.DatabaseError):
        return None
    name = getattr(exc, "sqlite_errorname", "") or ""
    for prefix, reason in _UNAVAILABLE:
        if name == prefix or name.startswith(prefix + "_"):
            return reason
    return None


class SQLiteTx:
    """``database.Tx`` over a ``sqlite3.Connection``, in aiosqlite's thread: every method
    finishes before it returns (nothing here suspends)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        try:
            self._db.execute(sql, params).close()
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            self._db.executemany(sql, rows).close()
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        try:
            cur = self._db.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise IntegrityError(str(exc)) from exc
        try:
            row: Row | None = cur.fetchone()
        except sqlite3.IntegrityError as exc:  # INSERT ... RETURNING fails on its first step
            raise IntegrityError(str(exc)) from exc
        finally:
            cur.close()
        return row

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        rows: list[Row] = self._db.execute(sql, params).fetchall()
        return rows


def _in_thread(work: Callable[[Tx], Coroutine[Any, Any, T]]) -> Callable[[sqlite3.Connection], T]:
    """A store write or read as the plain function aiosqlite's thread runs."""

    def run(db: sqlite3.Connection) -> T:
        return run_without_suspending(work(SQLiteTx(db)))

    return run


class SQLiteDatabase:
    """The shared connection: opening and migrating, the write lock, group commit, reads.

    Open with ``await SQLiteDatabase.open(path)``; always ``close()`` it (aiosqlite's worker
    thread is not a daemon: an open connection keeps the process alive)."""

    backend = "sqlite"
    lock_rows = lock_free_rows = ""  # (one connection writes, in one transaction at a time)
    shared = False  # one file, one process: the file's write lock is held for good

    def __init__(self, conn: aiosqlite.Connection, path: Path, *,
                 retry_every: float = RETRY_EVERY) -> None:
        self._conn = conn
        self.path = path
        #: the one voice that says when the file cannot be written, and when it can again
        self.outages = Outages(failing="cannot be written", retry_every=retry_every)
        self._lock = asyncio.Lock()
        self.schema_version = 0
        self.group_commit = True
        self._pending: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any],
                                  bool]] = []
        self._flusher: asyncio.Task[None] | None = None

    def __str__(self) -> str:
        return str(self.path)

    # -- opening and closing ----------------------------------------------------------

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] = DEFAULT_PATH,
        *,
        busy_timeout_ms: int = 1000,
        upto: int | None = None,
        group_commit: bool = True,
    ) -> SQLiteDatabase:
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

    async def live_processes(self) -> int:
        return 1  # only one process ever opens the file (see ``shared``)

    async def close(self) -> None:
        await self.outages.close()
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

    async def pragma(self, name: str, value: int | None = None) -> Any:
        """The value of a PRAGMA (for tests and diagnostics); with ``value``, set it first
        on this connection (a test's full disk: ``max_page_count``; a read-only file:
        ``query_only``)."""
        if not name.replace("_", "").isalpha():
            raise ValueError(f"not a pragma name: {name!r}")
        if value is None:
            row = await self._fetchone(f"PRAGMA {name}")
        else:
            async with self._lock:
                row = await self._fetchone(f"PRAGMA {name} = {int(value)}")
        return row[0] if row else None

    # -- reading -----------------------------------------------------------------------

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        async with self._conn.execute(sql, params) as cur:
            return await cur.fetchone()

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """One row of a read, under the lock (never inside someone else's transaction), in
        one hop to the connection's thread (aiosqlite's cursor takes three: execute, fetch,
        close)."""
        def one(db: sqlite3.Connection) -> Row | None:
            cur = db.execute(sql, params)
            try:
                row: Row | None = cur.fetchone()
            finally:
                cur.close()
            return row

        async with self._lock:
            found: Row | None = await self._conn._execute(  # type: ignore[no-untyped-call]
                one, self._conn._conn)
            return found

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Every row of a read, under the lock, in one hop."""
        def every(db: sqlite3.Connection) -> list[Row]:
            rows: list[Row] = db.execute(sql, params).fetchall()
            return rows

        async with self._lock:
            found: list[Row] = await self._conn._execute(  # type: ignore[no-untyped-call]
                every, self._conn._conn)
            return found

    async def read(self, work: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        """Run ``work`` (reads only) in the connection's thread, in one hop."""
        run = _in_thread(work)
        async with self._lock:
            result: T = await self._conn._execute(  # type: ignore[no-untyped-call]
                run, self._conn._conn)
            return result

    # -- writing -----------------------------------------------------------------------

    async def write(self, work: Callable[[Tx], Coroutine[Any, Any, T]], *,
                    durable: bool = True) -> T:
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

        ``durable=False`` (a hint: ``Database.write``): a batch of such writes only is
        committed with ``synchronous = NORMAL``, without the fsync. In WAL mode the commit
        is then in the operating system's hands: it outlives this process (killed or not)
        and is in the file for the next one, and only a crash of the machine itself may
        roll the last such commits back. One durable write in the batch makes it all
        durable, and the next fsync makes every earlier commit durable with it.
        """
        run = _in_thread(work)
        if not self.group_commit:
            async with self._lock:
                with self._faults():
                    outcome, wrote = await self._conn._execute(  # type: ignore[no-untyped-call]
                        _run_batch, self._conn._conn, [run], durable)
            self._wrote(wrote)
            single: T = _unwrap(outcome[0])
            return single
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((run, future, durable))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_writes())
        result: T = await future
        return result

    async def _flush_writes(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                async with self._lock:
                    with self._faults():
                        outcomes, wrote = await self._conn._execute(  # type: ignore[no-untyped-call]
                            _run_batch, self._conn._conn, [w for w, _, _ in batch],
                            any(durable for _, _, durable in batch))
                self._wrote(wrote)
            except BaseException as exc:  # the batch failed whole: nothing is durable
                for _, future, _ in batch:
                    if not future.done():
                        future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for (_, future, _), outcome in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if isinstance(outcome, _Failed):
                    future.set_exception(outcome.error)
                else:
                    future.set_result(outcome)

    def _faults(self) -> contextlib.AbstractContextManager[None]:
        """Around a batch of writes: a file that cannot be written for a while becomes
        ``StoreUnavailable`` (and ``outages`` hears of it; ``_wrote`` says when it is
        writable again)."""
        return said_as_outages(self.outages, unavailable_reason, answered=False)

    def _wrote(self, wrote: bool) -> None:
        """A batch went through: if it changed the file, the file can be written (one that
        changed nothing, a health check's ``SELECT 1``, proves nothing of a full disk)."""
        if wrote:
            self.outages.answered()

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


Connection = SQLiteDatabase  # the name the owners knew it by before there were two backends


@dataclass(frozen=True)
class _Failed:
    error: BaseException


def _unwrap(outcome: Any) -> Any:
    if isinstance(outcome, _Failed):
        raise outcome.error
    return outcome


def _run_batch(
    db: sqlite3.Connection, works: list[Callable[[sqlite3.Connection], Any]], durable: bool
) -> tuple[list[Any], bool]:
    """In aiosqlite's thread: one transaction, each write in its own savepoint; not
    ``durable``: committed without the fsync, the connection back to FULL after it.

    A write that fails alone (a broken unique key) is rolled back to its savepoint. One
    that meets a file that cannot be written (a full disk: SQLite has then rolled back
    the whole transaction itself) fails the whole batch, as a COMMIT that fails does:
    the others would meet the same disk. Returns the outcomes, and whether the committed
    batch changed the file."""
    if not durable:
        db.execute("PRAGMA synchronous = NORMAL")
    try:
        return _run_transaction(db, works)
    finally:
        if not durable:
            db.execute("PRAGMA synchronous = FULL")


def _run_transaction(
    db: sqlite3.Connection, works: list[Callable[[sqlite3.Connection], Any]]
) -> tuple[list[Any], bool]:
    outcomes: list[Any] = []
    before = db.total_changes
    db.execute("BEGIN IMMEDIATE")
    try:
        for work in works:
            db.execute("SAVEPOINT write")
            try:
                outcomes.append(work(db))
            except Exception as exc:
                if unavailable_reason(exc) is not None or not db.in_transaction:
                    raise
                db.execute("ROLLBACK TO write")
                outcomes.append(_Failed(exc))
            db.execute("RELEASE write")
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return outcomes, db.total_changes != before
