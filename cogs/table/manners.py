"""The Discord layer's layout settings: how a server's games sit in its channels.

Not the manager's business (it knows nothing of threads or board messages); kept in the
same database so one backup holds everything.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from store import Database, Tx


@dataclass(frozen=True)
class TableManners:
    """How a server's games sit in its channels (settings of the Discord layer)."""

    guild_id: int
    own_thread: bool = False
    tidy_boards: bool = False


class Layout:
    """Per-server layout settings (own thread, tidy boards), on the shared connection."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def table_manners(self, guild_id: int) -> TableManners:
        row = await self._db.fetchone(
            "SELECT own_thread, tidy_boards FROM guild_table_manners WHERE guild_id = ?",
            (guild_id,))
        if row is None:
            return TableManners(guild_id)
        return TableManners(guild_id, own_thread=bool(row[0]), tidy_boards=bool(row[1]))

    async def tidy_guilds(self) -> set[int]:
        """The servers that keep only the latest board message of a game."""
        rows = await self._db.fetchall(
            "SELECT guild_id FROM guild_table_manners WHERE tidy_boards")
        return {r[0] for r in rows}

    async def thread_guilds(self) -> set[int]:
        """The servers whose games each run in a thread of their own."""
        rows = await self._db.fetchall(
            "SELECT guild_id FROM guild_table_manners WHERE own_thread")
        return {r[0] for r in rows}

    async def save_table_manners(self, m: TableManners, *, now: float | None = None) -> None:
        async def work(db: Tx) -> None:
            await db.execute(
                "INSERT INTO guild_table_manners (guild_id, own_thread, tidy_boards, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET"
                " own_thread = excluded.own_thread, tidy_boards = excluded.tidy_boards,"
                " updated_at = excluded.updated_at",
                (m.guild_id, m.own_thread, m.tidy_boards, time.time() if now is None else now),
            )

        await self._db.write(work)
