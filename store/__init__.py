"""The store: one database (a SQLite file, or PostgreSQL), and the one face the other
layers see of it (as Red-DiscordBot's cogs see ``Config``, and its drivers stay behind it:
nothing outside this package imports a module of it, nor asks which backend runs).

- ``store.games`` (``GameLog``): lobbies, games, seats, action logs, server settings:
  what the game manager owns and nobody else writes.
- ``store.standings`` (``Standings``): the results of finished games, read only.
- ``store.rows``: the database itself (``Database``, its transactions timed with the
  owners'), for rows the store keeps beside the games for another layer and that layer
  alone reads and writes: the Discord side's posted messages, DM doors and layout
  settings (``cogs/table/posted.py``, ``cogs/table/manners.py``).

Beside them ``store.outages`` (``Outages``): whether the database answers now, and the
one voice that logs an outage (once when it begins, once when it ends). Every backend
raises ``StoreUnavailable`` (a ``StoreError``) when the database cannot be used for a
while, whatever its driver said. The records the store keeps a table in are here too:
``Seat`` (``seats.py``) and ``Status`` (``status.py``).

``Store`` itself only opens (migrations, refusing a newer database), closes and reports
on the database (``ping``: does it answer now; ``watch``: time every transaction for the
bot's metrics, ``watched.py``); each owner's methods live with the owner, written once
against ``backend.Database``. Two backends implement it: ``connection.SQLiteDatabase`` (the
default: one file, WAL, one connection whose write lock and group commit all the owners
share) and ``postgres.PostgresDatabase`` (asyncpg, a pool; each write its own transaction).
``open_store`` picks one from the settings: a ``DATABASE_URL`` wins over the SQLite path.
"""

from __future__ import annotations

import os
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from .backend import (
    MIGRATIONS,
    POSTGRES_MIGRATIONS,
    ChoreRow,
    CommitUnknown,
    Database,
    IntegrityError,
    Row,
    SchemaTooNew,
    StoreError,
    StoreUnavailable,
    Tx,
    migration_files,
    redacted,
)
from .connection import DEFAULT_PATH, WRITE_FAULTS, SQLiteDatabase
from .gamelog import GameLog, GameRecord, GuildSettings, ResultRecord
from .outages import Outages
from .seats import Seat
from .standings import KindStats, LeaderRow, LevelRow, ResultLine, Standings, Stats
from .status import OPEN, OPEN_SQL, Status
from .watched import TransactionWatch, Watched

if TYPE_CHECKING:  # (PostgreSQL's: loaded by ``shared_games`` only, never on SQLite)
    from .shared import SharedGames


class Store:
    """The database. Open with ``await Store.open(path)`` (SQLite) or
    ``await Store.connect(url)`` (PostgreSQL), or let ``open_store`` choose; always
    ``close()`` it (aiosqlite's worker thread is not a daemon: an open store keeps the
    process alive)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # the owners' transactions go through it, to be timed once ``watch`` is called
        self._watched = watched = Watched(db)
        self.games = GameLog(watched)
        self.standings = Standings(watched)
        #: the database, for the rows another layer keeps in it (see the module's doc)
        self.rows: Database = watched

    @classmethod
    async def open(
        cls,
        path: str | os.PathLike[str] = DEFAULT_PATH,
        *,
        busy_timeout_ms: int = 1000,
        upto: int | None = None,
        group_commit: bool = True,
    ) -> Store:
        """Open (creating if needed, mode 0600) and migrate the database at ``path``.

        Raises ``SchemaTooNew`` (a ``StoreError``), touching nothing, when the database
        was written by a newer version of the bot. ``upto`` stops after that migration
        (tests only, to write an old database)."""
        return cls(await SQLiteDatabase.open(path, busy_timeout_ms=busy_timeout_ms, upto=upto,
                                             group_commit=group_commit))

    @classmethod
    async def connect(
        cls, url: str, *, upto: int | None = None, min_size: int = 1, max_size: int = 10,
    ) -> Store:
        """Connect to the PostgreSQL database at ``url``
        (``postgresql://user[:password]@host:port/dbname``) and migrate it, holding an
        advisory lock so two processes starting at once migrate it once. Raises
        ``SchemaTooNew`` (touching nothing) for a newer bot's database. ``upto``: tests
        only. The pool holds ``min_size`` to ``max_size`` connections."""
        # Imported here so a SQLite-only bot never loads asyncpg.
        from .postgres import PostgresDatabase

        return cls(await PostgresDatabase.connect(url, upto=upto, min_size=min_size,
                                                  max_size=max_size))

    @property
    def backend(self) -> str:
        """"sqlite" or "postgres"."""
        return self._db.backend

    @property
    def shared(self) -> bool:
        """Whether other bot processes may change this store's games and settings too
        (PostgreSQL), so a process must follow what they do; SQLite: this process alone."""
        return self._db.shared

    async def live_processes(self) -> int:
        """How many bot processes use this store now, this one included (they share the
        bot's token, and so its rate limit: ``runtime.budget``)."""
        return await self._db.live_processes()

    def shared_games(self) -> SharedGames:
        """What several processes share a game with (PostgreSQL only: its locks, notices,
        chores and promises to announce), for the manager's strategy for them."""
        from .postgres import PostgresDatabase
        from .shared import SharedGames

        if not isinstance(self._db, PostgresDatabase):
            raise StoreError("several processes share games on PostgreSQL only")
        return SharedGames(self._db)

    @property
    def database(self) -> Database:
        """The backend itself (``execute``/``fetchall``/``write``/``read``): for tools
        that copy or inspect whole tables, and tests."""
        return self._db

    def watch(self, watch: TransactionWatch | None) -> None:
        """Tell ``watch`` of every transaction of the owners from now on: how long it
        took and whether it failed (the bot's metrics). None: stop telling."""
        self._watched.watch = watch

    async def ping(self) -> None:
        """Ask the database whether it answers now: ``SELECT 1`` in a write transaction,
        so an answer means a change could be saved (SQLite: the file's write lock was
        taken, which another program holding it refuses after the busy timeout). Raises
        ``StoreUnavailable`` (its ``reason`` in a few words) when it does not; bound it
        with a timeout of your own. (A full disk is not seen here, nothing is written:
        ``cannot_write`` says what the last write found.)"""
        await self._db.write(_select_one)

    def cannot_write(self) -> str | None:
        """Why no change can be saved now, as the last write found it, when that lasts
        until a write works again: the disk full, or the file read-only (``WRITE_FAULTS``;
        None otherwise, and as soon as a write has worked since). Asked by ``/healthz``
        instead of a write of its own, which would fill a disk further, and answer 200
        between two refused moves whenever a page happened to be free."""
        outages = self._db.outages
        if outages.down and outages.reason in WRITE_FAULTS:
            return outages.reason
        return None

    @property
    def outages(self) -> Outages:
        """Whether the database answers now (``down``, ``reason``); the one voice that
        logs each outage, once when it begins and once when it ends. What must go on
        after one waits with ``outages.wait_to_retry()``."""
        return self._db.outages

    @property
    def path(self) -> Path:
        """The SQLite file (a PostgreSQL store has none)."""
        return self._sqlite("path").path

    def _sqlite(self, what: str) -> SQLiteDatabase:
        if not isinstance(self._db, SQLiteDatabase):
            raise StoreError(f"{what} is a SQLite matter; this store is on {self.backend}")
        return self._db

    @property
    def schema_version(self) -> int:
        """The number of the last migration applied to this database."""
        return self._db.schema_version

    async def pragma(self, name: str, value: int | None = None) -> Any:
        """The value of a PRAGMA (for tests and diagnostics); with ``value``, set it on
        the store's connection first."""
        return await self._sqlite("a PRAGMA").pragma(name, value)

    def transaction(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """SQLite only: one serialised write transaction, statement by statement (the
        benchmark's comparison with the one-hop writes). Commit on success, roll back on
        error."""
        return self._sqlite("a raw transaction").transaction()

    async def close(self) -> None:
        await self._db.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def _select_one(tx: Tx) -> None:
    await tx.fetchone("SELECT 1")


async def open_store(database_url: str | None, database_path: str | os.PathLike[str]) -> Store:
    """The bot's store from its settings: PostgreSQL at ``database_url`` when it is set (and
    then no SQLite file is created), else the SQLite file at ``database_path``."""
    if database_url:
        return await Store.connect(database_url)
    return await Store.open(database_path)


__all__ = [
    "DEFAULT_PATH",
    "MIGRATIONS",
    "OPEN",
    "OPEN_SQL",
    "POSTGRES_MIGRATIONS",
    "ChoreRow",
    "CommitUnknown",
    "Database",
    "GameLog",
    "GameRecord",
    "GuildSettings",
    "IntegrityError",
    "KindStats",
    "LeaderRow",
    "LevelRow",
    "Outages",
    "ResultLine",
    "ResultRecord",
    "Row",
    "SchemaTooNew",
    "Seat",
    "SharedGames",
    "Standings",
    "Stats",
    "Status",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "TransactionWatch",
    "Tx",
    "migration_files",
    "open_store",
    "redacted",
]
