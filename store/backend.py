"""The seam between the store's owners and the database behind them.

``GameLog``, ``Standings`` and ``Layout`` are written once, against the small ``Database``
protocol here; ``connection.SQLiteDatabase`` (one file, aiosqlite, the default) and
``postgres.PostgresDatabase`` (asyncpg, a pool) implement it. What differs between the
two SQL dialects is settled in one place each, not per query:

- placeholders: the owners write ``?``; the PostgreSQL side rewrites them to ``$1, $2...``
  once per statement text (``numbered``), cached;
- a new row's id: ``INSERT ... RETURNING id`` read with ``fetchone`` (SQLite has it since
  3.35), so there is no ``lastrowid``;
- upserts: ``INSERT ... ON CONFLICT (key) DO UPDATE SET c = excluded.c`` is the same text
  in both;
- booleans: the owners pass Python ``bool`` and test a flag as ``WHERE flag`` (SQLite
  stores 1/0 in an INTEGER, PostgreSQL has BOOLEAN); they read flags through ``bool()``;
- counting: ``SUM(CASE WHEN ... THEN 1 ELSE 0 END)``, never ``SUM(a = b)``, and no output
  alias inside an expression or in HAVING (PostgreSQL allows neither);
- JSON stays text (``dumps``): the store never queries inside it and a snapshot must read
  back exactly as written (the copy tool compares them byte for byte);
- column types (REAL vs DOUBLE PRECISION, INTEGER vs BIGINT, AUTOINCREMENT vs an identity
  column) live only in each backend's numbered migrations;
- a broken unique key is ``IntegrityError`` here, whichever driver raised it.

A write is an ``async def work(tx: Tx)`` that only awaits ``tx``'s methods. On PostgreSQL
it runs as one transaction on a pooled connection with real awaits. On SQLite the same
coroutine is driven to its end inside aiosqlite's thread without ever suspending (every
``tx`` method there returns at once), so a move stays one hop to that thread and keeps
its place in the group commit.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit, urlunsplit

from .outages import Outages

T = TypeVar("T")

MIGRATIONS = Path(__file__).with_name("migrations")
POSTGRES_MIGRATIONS = MIGRATIONS / "postgres"
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


#: A game's next chore as stored: (what, due_at, claimed_until).
ChoreRow = tuple[str, float | None, float | None]

class StoreError(RuntimeError):
    """The database cannot be used as it is (the bot should stop and say why), or, as
    ``StoreUnavailable``, not right now."""


class StoreUnavailable(StoreError):
    """The database cannot be used for a while: PostgreSQL unreachable (refused, cut,
    shutting down, no answer in time), or the SQLite file cannot be written (its disk
    full, the file read-only, locked by another program beyond the busy timeout). Nothing
    was written. Not a bug: the person is told to try again in a few seconds, background
    work tries again by itself, and the store's ``Outages`` has said it in the log, once
    per outage, so whoever meets this logs nothing more.

    ``code`` and ``params`` are shaped like a refusal's, so the words for it are found the
    same way (``error.store_unavailable``); ``reason`` is for the log."""

    code = "store_unavailable"

    def __init__(self, reason: str) -> None:
        super().__init__(f"the database cannot be used right now: {reason}")
        self.reason = reason
        self.params: dict[str, object] = {}


class CommitUnknown(StoreUnavailable):
    """The database went away after a write's COMMIT was sent and before it answered (the
    connection cut, the server stopped): the write may be stored or not, and only the
    database can say which once it answers again. Whoever made the write asks it (a move
    by its request id: ``GameLog.ply_of_request``) instead of guessing. Never raised by
    SQLite, whose commits are answered by the file itself.

    Reaching a person, it says what is true: the bot cannot tell yet whether the change
    was kept (``error.store_unsure``)."""

    code = "store_unsure"


class SchemaTooNew(StoreError):
    """The database was written by a newer version of the bot than this one."""

    def __init__(self, path: Path | str, found: int, known: int) -> None:
        super().__init__(
            f"the database at {path} is at schema version {found} but this code knows only "
            f"up to {known}: upgrade the bot, or restore a backup")
        self.path = path
        self.found = found
        self.known = known


class IntegrityError(Exception):
    """A write broke a constraint (a second lobby in a channel, a ply written twice).

    The driver's own error (``sqlite3.IntegrityError``, asyncpg's
    ``IntegrityConstraintViolationError``) is its ``__cause__``."""


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


class Row(Protocol):
    """A result row: ``sqlite3``'s tuple or asyncpg's ``Record``, read by position."""

    def __getitem__(self, index: int) -> Any: ...

    def __len__(self) -> int: ...


class Tx(Protocol):
    """The statements of one transaction (or one consistent read). SQL uses ``?``."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class Database(Protocol):
    """What the store's owners need from a backend."""

    #: "sqlite" or "postgres"
    backend: str
    #: whether several bot processes may share it (and its games, and the token)
    shared: bool
    #: what ends a SELECT that locks the rows it reads until its transaction ends (" FOR
    #: UPDATE" with several writers; "" where one connection writes all: SQLite), and one
    #: that takes only rows nobody holds (" FOR UPDATE SKIP LOCKED"): so a layer keeping
    #: rows of its own in the database writes its SQL once, never asking which backend runs
    lock_rows: str
    lock_free_rows: str
    #: the number of the last migration applied
    schema_version: int
    #: whether the database answers now; says each outage once in the log
    outages: Outages

    async def write(self, work: Callable[[Tx], Coroutine[Any, Any, T]], *,
                    durable: bool = True) -> T:
        """Run ``work`` as one atomic, durable transaction; return once it is committed.

        ``durable=False``: a hint that must outlive this process, not the machine (a row
        saying what a message shows, which at worst costs one more edit): it may go
        without waiting for the disk where the backend can still keep it through the
        death of every process (SQLite's WAL), and stays durable where it cannot."""
        ...

    async def read(self, work: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        """Run ``work`` (reads only) against one consistent view of the database."""
        ...

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None: ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    async def live_processes(self) -> int:
        """How many bot processes use this database now, this one included."""
        ...

    async def close(self) -> None: ...


def run_without_suspending(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never really awaits (a write over SQLite's ``Tx``) to its end.

    A write that awaited anything else (a sleep, the network) would suspend here, in
    aiosqlite's thread, with the transaction open: that is a bug in the write, refused
    loudly rather than left to deadlock."""
    try:
        coro.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    coro.close()
    raise RuntimeError("a store write awaited something other than its transaction")


_PLACEHOLDER = re.compile(r"'[^']*'|\?")


def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2, ...`` (a ``?`` in a quoted literal
    stays)."""
    counter = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal counter
        if m.group(0) != "?":
            return m.group(0)
        counter += 1
        return f"${counter}"

    return _PLACEHOLDER.sub(swap, sql)


def redacted(url: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}@" if parts.username else ""
    return urlunsplit(parts._replace(netloc=f"{user}{host}"))


@contextlib.contextmanager
def said_as_outages(outages: Outages, reason_of: Callable[[BaseException], str | None], *,
                    answered: bool) -> Iterator[None]:
    """Around a use of the database: the driver's ways of saying the database is away
    (``reason_of`` gives the reason, None for anything else) become ``StoreUnavailable``,
    and ``outages`` hears of it; any other error is left as it is (a bug, or a refusal such
    as a broken unique key). ``answered``: an answer tells ``outages`` the database is
    there (a backend that knows better, SQLite, says so itself), if it answers a question
    asked since the outage began (``Outages.answered``)."""
    asked_at = outages.now()
    try:
        yield
    except Exception as exc:
        reason = reason_of(exc)
        if reason is None:
            raise
        outages.failed(reason)
        raise StoreUnavailable(reason) from exc
    if answered:
        outages.answered(asked_at)
