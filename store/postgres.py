"""The PostgreSQL backend: an asyncpg pool behind the same ``backend.Database`` protocol.

Chosen by ``DATABASE_URL=postgresql://user@host:port/dbname`` (``open_store``). What SQLite
needs and PostgreSQL does not: the write lock and the group commit. PostgreSQL takes
concurrent transactions itself, so each write is simply one transaction on a pooled
connection; the manager's order (commit, then announce) holds because ``write`` returns
only after COMMIT. Writes of one game never race each other: the manager holds that
game's lock around them.

Migrations are the numbered files in ``migrations/postgres/`` (the same numbers as the
SQLite ones, with the same tables and columns in PostgreSQL's types). The number of the
last one applied is the one row of ``schema_version``. Two processes starting at once
both take ``pg_advisory_lock`` before reading it, so one migrates and the other then
finds the work done. A database newer than the code is refused before anything is written.

A database that goes away (restarted, the network cut) is not a bug: every operation
runs inside ``faults()``, which turns the driver's ways of saying so (connection refused
or reset, the server shutting down, no answer in time) into ``StoreUnavailable`` and
tells ``outages`` (``outages.py``), the one voice that logs it, once per outage. Connecting
and every statement have a time limit, so a click meets a database that does not answer
as a refusal within Discord's 3 s, not as silence.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

import asyncpg

from .backend import (
    POSTGRES_MIGRATIONS,
    CommitUnknown,
    IntegrityError,
    Row,
    SchemaTooNew,
    StoreUnavailable,
    Tx,
    migration_files,
    numbered,
    redacted,
    said_as_outages,
)
from .outages import RETRY_EVERY, Outages
from .session_locks import SessionLocks

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds to open a connection (a server that does not answer is away), and for any one
#: statement (a server that stopped answering mid-way is away too). A game's lock may be
#: waited for longer (``LOCK_WAIT``): another process holds it while it commits a change.
CONNECT_TIMEOUT = 2.0
COMMAND_TIMEOUT = 10.0
LOCK_WAIT = 60.0

#: The advisory lock every process takes around migrating (any fixed 64-bit number; this
#: one spells "sequence" in ASCII-ish hex, so it is unlikely to clash with another app's).
MIGRATION_LOCK = 0x5E9_0E1CE
#: Every connection of a bot process says who it is in ``application_name``: this, then
#: the process's session (random per start). ``pg_stat_activity`` then tells whether the
#: process that claimed a chore or promised an announcement is still alive: a process
#: that dies loses its connections at once, so its work is taken over without waiting
#: for its claims to run out (``shared.py``).
SESSION_PREFIX = "sequence-bot:"


async def connect_whole(*args: Any, **kwargs: Any) -> asyncpg.Connection:
    """``asyncpg.connect``, never given up halfway: a cancelled connect is let finish (its
    own timeout bounds it), the connection it made is closed, then the cancellation goes on.

    Why: asyncpg leaves a future holding an exception nobody reads when a connect is
    cancelled in the moment between its socket opening and the server's first answer (its
    protocol hears the socket close after the caller left), and asyncio then logs "Future
    exception was never retrieved ... unexpected connection_lost() call". A clean stop
    cancels whatever is connecting (a pool growing for a poll, the change follower), so a
    bot stopping at that moment logged an error; the pool and the change follower connect
    through this."""
    attempt = asyncio.ensure_future(asyncpg.connect(*args, **kwargs))
    try:
        return await asyncio.shield(attempt)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception, asyncio.CancelledError):
            made = await attempt
            made.terminate()
        raise


@functools.lru_cache(maxsize=512)
def _sql(text: str) -> str:
    return numbered(text)


def unavailable_reason(exc: BaseException) -> str | None:
    """A few words for the log if ``exc`` says the database is away (not a bug), else
    None."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ConnectionResetError | BrokenPipeError):
        return "connection reset"
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, OSError):
        if exc.strerror:
            return exc.strerror
        if isinstance(exc, ConnectionError):
            # asyncpg's own, with no errno: the server went away during the connect's TLS
            # handshake ("unexpected connection_lost() call"), or answered it with an error
            said = str(exc)
            if "connection_lost" in said or not said:
                return "connection lost"
            return said.rsplit('": ', 1)[-1].split(";", 1)[0]
        return type(exc).__name__
    if isinstance(exc, asyncpg.ConnectionDoesNotExistError):
        return "connection lost"
    if isinstance(exc, asyncpg.PostgresConnectionError
                  | asyncpg.exceptions.OperatorInterventionError
                  | asyncpg.exceptions.InsufficientResourcesError):
        return str(exc).split("\n", 1)[0] or type(exc).__name__
    if isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc):
        return "connection closed"
    if isinstance(exc, asyncpg.exceptions.InternalClientError):
        # asyncpg's state machine broken by a connection cut in the middle of a statement
        return "connection lost"
    return None


class _QuietPoolFloor(logging.Filter):
    """asyncpg's pool keeps reconnecting its floor of idle connections while the server
    is away, logging each failed try with a traceback: ``Outages`` says the outage once
    instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to restore the pool connection floor")


_POOL_FLOOR_QUIET = _QuietPoolFloor()


@dataclass
class _Held:
    conn: asyncpg.Connection
    task: asyncio.Task[Any] | None
    # a statement every write on this connection also runs, in the same transaction
    # (the promise to deliver the change's announcements: ``shared.SharedGames.locked``)
    also: tuple[str, tuple[Any, ...]] | None = None
    # statements every write on this connection runs last, in the same transaction,
    # computed when it runs (what is due next in the game: ``shared.SharedGames.locked``)
    after: Callable[[], Sequence[tuple[str, tuple[Any, ...]]]] | None = None
    active: bool = True


_HELD: ContextVar[_Held | None] = ContextVar("sequence_held_connection", default=None)


@contextlib.contextmanager
def holding(conn: asyncpg.Connection, also: tuple[str, tuple[Any, ...]] | None = None,
            after: Callable[[], Sequence[tuple[str, tuple[Any, ...]]]] | None = None,
            ) -> Iterator[None]:
    """While the block runs, this task's reads and writes go to ``conn`` (it holds a game's
    lock: ``shared.SharedGames.locked``), and every write transaction also runs ``also``
    first and what ``after()`` returns last (SQL with ``$n`` placeholders, and its
    arguments)."""
    held = _Held(conn, asyncio.current_task(), also, after)
    token = _HELD.set(held)
    try:
        yield
    finally:
        held.active = False
        _HELD.reset(token)


def _held() -> _Held | None:
    held = _HELD.get()
    if held is not None and held.active and held.task is asyncio.current_task():
        return held
    return None


def hold_on(conn: asyncpg.Connection) -> None:
    """This task's held connection broke, and the game's lock with it: ``conn`` holds the
    lock again and carries the rest of the change (``shared.SharedGames.hold_again``)."""
    held = _held()
    if held is None:
        raise RuntimeError("this task holds no game's lock")
    held.conn = conn


def broken(conn: asyncpg.Connection) -> bool:
    """Whether a connection went (cut, or the server gone): asyncpg's pool then takes it
    back at once, and a held one answers nothing any more."""
    try:
        return bool(conn.is_closed())
    except asyncpg.InterfaceError:  # released to the pool when it broke
        return True


def held_connection() -> asyncpg.Connection | None:
    """The connection holding a game's lock, if this very task holds one.

    The task is checked as well as the context: a task started while the lock is held
    copies the context, and must not use a connection that is not its own."""
    held = _held()
    return held.conn if held is not None else None


class PostgresTx:
    """``database.Tx`` over one asyncpg connection inside its transaction."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        try:
            await self._conn.execute(_sql(sql), *params)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise IntegrityError(str(exc)) from exc

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        if not rows:
            return
        try:
            await self._conn.executemany(_sql(sql), rows)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise IntegrityError(str(exc)) from exc

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        try:
            row: Row | None = await self._conn.fetchrow(_sql(sql), *params)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise IntegrityError(str(exc)) from exc
        return row

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        rows: list[Row] = await self._conn.fetch(_sql(sql), *params)
        return rows


class PostgresDatabase:
    """A pool of connections to one PostgreSQL database. Open with
    ``await PostgresDatabase.connect(url)``; always ``close()`` it."""

    backend = "postgres"
    lock_rows, lock_free_rows = " FOR UPDATE", " FOR UPDATE SKIP LOCKED"
    shared = True  # any number of bot processes on one database (docs/SCALING.md)

    def __init__(self, pool: asyncpg.Pool, url: str, session: str = "", *,
                 retry_every: float = RETRY_EVERY, locks: SessionLocks | None = None) -> None:
        self._pool = pool
        #: the session-level locks its connections may hold: a connection is reset on its
        #: way back into the pool only while it may hold one (the pool's ``reset``)
        self.locks = locks if locks is not None else SessionLocks()
        self.url = url
        self.schema_version = 0
        self.session = session  # this process's name among the others (SESSION_PREFIX)
        #: the one voice that says when the database goes away and comes back
        self.outages = Outages(failing="unreachable", probe=self._answers,
                               retry_every=retry_every)

    def faults(self) -> contextlib.AbstractContextManager[None]:
        """Around every use of the database: the driver's ways of saying the database is
        away become ``StoreUnavailable`` (and ``outages`` hears of it); an answer tells
        ``outages`` the database is there. Any other error is left as it is."""
        return said_as_outages(self.outages, unavailable_reason, answered=True)

    async def _answers(self) -> None:
        """Whether the database answers: ``outages`` asks while it is away."""
        async with self._pool.acquire(timeout=CONNECT_TIMEOUT) as conn:
            await conn.fetchval("SELECT 1", timeout=CONNECT_TIMEOUT)

    def __str__(self) -> str:
        return redacted(self.url)

    @property
    def pool(self) -> asyncpg.Pool:
        """The pool itself, for ``shared.SharedGames`` (game locks, change notices)."""
        return self._pool

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[asyncpg.Connection]:
        """The connection holding a game's lock if this task holds one (its reads and
        writes go there: see ``shared``), else one from the pool. (One that broke holds
        nothing any more: asking the database what a lost commit did then goes to the
        pool.)"""
        held = held_connection()
        if held is not None and not broken(held):
            yield held
            return
        async with self._pool.acquire() as conn:
            yield conn

    @classmethod
    async def connect(
        cls, url: str, *, upto: int | None = None, min_size: int = 1, max_size: int = 10,
    ) -> PostgresDatabase:
        """Connect to ``url`` and migrate the database (``upto``: tests only, to write an
        old one). Raises ``SchemaTooNew`` (before writing anything) for a newer bot's, and
        ``StoreUnavailable`` if the database cannot be reached."""
        session = secrets.token_hex(8)
        logging.getLogger("asyncpg.pool").addFilter(_POOL_FLOOR_QUIET)  # (once: a set)
        locks = SessionLocks()
        try:
            pool = await asyncpg.create_pool(
                url, min_size=min_size, max_size=max_size, timeout=CONNECT_TIMEOUT,
                command_timeout=COMMAND_TIMEOUT, reset=locks.reset, connect=connect_whole,
                server_settings={"application_name": SESSION_PREFIX + session})
        except Exception as exc:
            reason = unavailable_reason(exc)
            if reason is None:
                raise
            raise StoreUnavailable(reason) from exc
        db = cls(pool, url, session, locks=locks)
        try:
            with db.faults():
                await db._migrate(upto)
        except BaseException:
            await db.close()
            raise
        return db

    async def close(self) -> None:
        await self.outages.close()
        await self._pool.close()

    async def live_processes(self) -> int:
        """How many bot processes are connected to this database now, this one included:
        the distinct sessions among the connections (``SESSION_PREFIX``). The processes
        sharing a database share the bot's token, and so its rate limit
        (``runtime.budget``)."""
        async with self._pool.acquire() as conn:
            count: int = await conn.fetchval(
                "SELECT count(DISTINCT application_name) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name LIKE $1",
                SESSION_PREFIX + "%")
        return count

    async def _migrate(self, upto: int | None) -> None:
        known = migration_files(POSTGRES_MIGRATIONS)
        async with self._pool.acquire() as conn:
            # Session-level: held across the per-migration transactions below, and let go
            # even if one fails (the finally), or by the server if this process dies.
            await self.locks.lock(conn, MIGRATION_LOCK)
            try:
                version = await _stored_version(conn)
                if version > len(known):
                    raise SchemaTooNew(redacted(self.url), version, len(known))
                for number, path in known:
                    if number <= version or (upto is not None and number > upto):
                        continue
                    log.info("migrating %s to schema %d (%s)", redacted(self.url), number,
                             path.name)
                    sql = path.read_text(encoding="utf-8")
                    async with conn.transaction():  # a migration applies whole or not at all
                        await conn.execute(
                            "CREATE TABLE IF NOT EXISTS schema_version ("
                            " only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),"
                            " version INTEGER NOT NULL)")
                        await conn.execute(sql)
                        await conn.execute(
                            "INSERT INTO schema_version (only_row, version) VALUES (TRUE, $1)"
                            " ON CONFLICT (only_row) DO UPDATE SET version = excluded.version",
                            number)
                    version = number
                self.schema_version = version
            finally:
                await self.locks.unlock(conn, MIGRATION_LOCK)

    # -- reading -----------------------------------------------------------------------

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        with self.faults():
            async with self._connection() as conn:
                row: Row | None = await conn.fetchrow(_sql(sql), *params)
        return row

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        with self.faults():
            async with self._connection() as conn:
                rows: list[Row] = await conn.fetch(_sql(sql), *params)
        return rows

    async def read(self, work: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        """``work``'s reads all see one snapshot (a game's row, seats and log agree)."""
        with self.faults():
            async with self._connection() as conn, conn.transaction(
                    isolation="repeatable_read", readonly=True):
                return await work(PostgresTx(conn))

    # -- writing -----------------------------------------------------------------------

    async def write(self, work: Callable[[Tx], Coroutine[Any, Any, T]], *,
                    durable: bool = True) -> T:
        """One transaction on a pooled connection; returns after its COMMIT.

        Always durable (``durable`` is not used): PostgreSQL's asynchronous commit loses
        the last transactions when the server crashes, not only when the machine does,
        and the server is stopped under the bot in earnest (``tests/reliability``).

        A database that goes away before COMMIT is sent leaves nothing written
        (``StoreUnavailable``); one that goes away after it was sent and before it
        answered may have written it or not (``CommitUnknown``): only the database can
        tell, once it answers again."""
        held = _held()
        committing = False
        with self.faults():
            try:
                async with self._connection() as conn, conn.transaction():
                    if held is not None and held.also is not None:
                        await conn.execute(held.also[0], *held.also[1])
                    result = await work(PostgresTx(conn))
                    if held is not None and held.after is not None:
                        for sql, args in held.after():
                            await conn.execute(sql, *args)
                    committing = True  # (leaving the block sends COMMIT)
            except Exception as exc:
                reason = unavailable_reason(exc) if committing else None
                if reason is None:
                    raise
                self.outages.failed(reason)
                raise CommitUnknown(reason) from exc
            return result


async def _stored_version(conn: asyncpg.Connection) -> int:
    """The schema version, read without writing anything (0 for an empty database)."""
    if await conn.fetchval("SELECT to_regclass('schema_version')") is None:
        return 0
    found = await conn.fetchval("SELECT version FROM schema_version")
    return int(found or 0)
