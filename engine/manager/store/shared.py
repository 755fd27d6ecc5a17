"""What several bot processes on one PostgreSQL need from it to share the games.

No game lives in one process's memory as the source of truth: each process may cache a
game, but changes it only while holding that game's lock in the database, after checking
the stored version against its cache. Three things here, all PostgreSQL's own:

- **A game's lock**: ``pg_advisory_lock(GAME_LOCKS, game_id)`` on one pooled connection,
  held from the check to the commit. While a task holds it, the store's reads and writes
  in that task run on the same connection (``held_connection``), so a process never needs
  a second connection to finish what it locked, and a pool as small as the number of games
  changing at once cannot deadlock. If the process dies, its connection closes and
  PostgreSQL lets the lock go: nothing to clean up.
- **A game's version**: the row's ``xmin`` (the transaction that last wrote it). Every
  change of a game writes its ``games`` row (a move its snapshot, a lobby its deadline, an
  end its status), so an unchanged ``xmin`` means an unchanged game: no migration needed.
- **Change notices**: ``NOTIFY sequence_games, '<game id>'`` after a change, heard by every
  other process through ``LISTEN`` on one dedicated connection, so their caches follow
  within milliseconds (a process that misses one finds out at its next check anyway).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg

from .postgres import PostgresDatabase, held_connection, holding

log = logging.getLogger(__name__)

#: The first key of every game's advisory lock (the second is the game id), so the locks
#: never meet the migration lock or another application's.
GAME_LOCKS = 0x5E9
CHANNEL = "sequence_games"


class SharedGames:
    """Locks, versions and change notices of the games in one PostgreSQL database."""

    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db
        self._listener: asyncpg.Connection | None = None
        self._heard: Callable[[int], None] | None = None

    @contextlib.asynccontextmanager
    async def locked(self, game_id: int) -> AsyncIterator[None]:
        """Hold ``game_id``'s lock (waiting while another process holds it)."""
        if not 0 <= game_id < 2**31:
            raise ValueError(f"game id {game_id} does not fit an advisory lock key")
        async with self._db.pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1, $2)", GAME_LOCKS, game_id)
            try:
                with holding(conn):
                    yield
            finally:
                # a connection that broke lost its lock with its session: nothing to undo
                with contextlib.suppress(asyncpg.PostgresError, OSError,
                                         asyncpg.InterfaceError):
                    await conn.execute("SELECT pg_advisory_unlock($1, $2)", GAME_LOCKS,
                                       game_id)

    async def version(self, game_id: int) -> str | None:
        """The game row's version (``xmin``), None if there is no such game."""
        sql = "SELECT xmin::text FROM games WHERE id = $1"
        conn = held_connection()
        found = await (conn.fetchval(sql, game_id) if conn is not None
                       else self._db.pool.fetchval(sql, game_id))
        return str(found) if found is not None else None

    async def active_versions(self) -> dict[int, str]:
        """Every lobby and game in play, with its version."""
        rows = await self._db.pool.fetch(
            "SELECT id, xmin::text FROM games WHERE status IN ('lobby', 'playing')")
        return {int(r[0]): str(r[1]) for r in rows}

    async def notify(self, game_id: int) -> None:
        """Tell the other processes that ``game_id`` changed."""
        conn = held_connection()
        sql = "SELECT pg_notify($1, $2)"
        if conn is not None:
            await conn.execute(sql, CHANNEL, str(game_id))
        else:
            await self._db.pool.execute(sql, CHANNEL, str(game_id))

    async def listen(self, heard: Callable[[int], None]) -> None:
        """Call ``heard(game_id)`` for every change another process announces (on one
        dedicated connection; ``listening`` says whether it is still up)."""
        self._heard = heard
        conn = await asyncpg.connect(self._db.url)
        await conn.add_listener(CHANNEL, self._on_notice)
        self._listener = conn

    @property
    def listening(self) -> bool:
        return self._listener is not None and not self._listener.is_closed()

    def _on_notice(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        # our own notices come back too (the listener is a session of its own): the
        # manager finds its cache already at that version and does nothing
        if self._heard is not None:
            with contextlib.suppress(ValueError):
                self._heard(int(payload))

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None and not listener.is_closed():
            with contextlib.suppress(asyncpg.PostgresError, OSError, asyncpg.InterfaceError):
                await listener.close()
