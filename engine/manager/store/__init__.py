"""The store: one SQLite database with three owners sharing one connection.

- ``store.games`` (``GameLog``): lobbies, games, seats, action logs, server settings:
  what the game manager owns and nobody else writes.
- ``store.standings`` (``Standings``): the results of finished games, read only.
- ``store.layout`` (``Layout``): the Discord layer's layout settings per server.

``Store`` itself only opens (WAL, migrations, refusing a newer database), closes and
reports on the database; each owner's methods live with the owner. All three share the
connection's write lock and group commit, so a move is still one commit of its own.
"""

from __future__ import annotations

import os
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import aiosqlite

from ..seats import Seat
from .connection import (
    DEFAULT_PATH,
    MIGRATIONS,
    Connection,
    SchemaTooNew,
    StoreError,
    migration_files,
)
from .gamelog import GameLog, GameRecord, GuildSettings, ResultRecord
from .layout import Layout, TableManners
from .standings import KindStats, LeaderRow, LevelRow, ResultLine, Standings, Stats


class Store:
    """The database. Open with ``await Store.open(path)``; always ``close()`` it
    (aiosqlite's worker thread is not a daemon: an open store keeps the process alive)."""

    def __init__(self, db: Connection) -> None:
        self._db = db
        self.games = GameLog(db)
        self.standings = Standings(db)
        self.layout = Layout(db)

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
        return cls(await Connection.open(path, busy_timeout_ms=busy_timeout_ms, upto=upto,
                                         group_commit=group_commit))

    @property
    def path(self) -> Path:
        return self._db.path

    @property
    def schema_version(self) -> int:
        """The number of the last migration applied to this database."""
        return self._db.schema_version

    async def pragma(self, name: str) -> Any:
        """The value of a PRAGMA (for tests and diagnostics)."""
        return await self._db.pragma(name)

    def transaction(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        """One serialised write transaction: commit on success, roll back on error."""
        return self._db.transaction()

    async def close(self) -> None:
        await self._db.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


__all__ = [
    "DEFAULT_PATH",
    "MIGRATIONS",
    "GameLog",
    "GameRecord",
    "GuildSettings",
    "KindStats",
    "Layout",
    "LeaderRow",
    "LevelRow",
    "ResultLine",
    "ResultRecord",
    "SchemaTooNew",
    "Seat",
    "Standings",
    "Stats",
    "Store",
    "StoreError",
    "TableManners",
    "migration_files",
]
