"""A stored game becomes a table again: at start-up, and when another process changed it.

At start-up each unfinished game's snapshot is checked against its replayed action log
(``check_snapshot``); if they differ the log wins, loudly, and its state is written back.
A cache brought up to date (another process's change) trusts the snapshot: that process
checked it when it wrote it.
"""

from __future__ import annotations

import logging

from engine.factory import load, replay
from engine.game import Game
from store import GameRecord, GuildSettings, Status, Store, StoreUnavailable

from .events import GameOver
from .house_rules import HouseRules
from .table import Table, Tables
from .timers import Clock

log = logging.getLogger(__name__)


class Restorer:
    """Reads tables back from the store."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def server_settings(self, guild_id: int | None) -> GuildSettings:
        """The settings of a table's server as stored now (a table outside any server:
        the defaults)."""
        if guild_id is None:
            return GuildSettings(0)
        return await self._store.games.guild_settings(guild_id)

    async def rules_for(self, guild_id: int | None, host_timer: float | None) -> HouseRules:
        """A table's rules: its server's settings, with the host's own turn timer if the
        host chose one (0: none)."""
        return HouseRules.of(await self.server_settings(guild_id), host_timer)

    async def restore(self, rec: GameRecord, *, check: bool = True) -> Table:
        """The table of a stored record; ``check``: replay the log against the snapshot."""
        table = Table(
            id=rec.id, kind=rec.kind, options=rec.options, status=rec.status,
            guild_id=rec.guild_id, channel_id=rec.channel_id, host_id=rec.host_id,
            seats=rec.seats, on_leave=rec.on_leave, created_at=rec.created_at,
            rules=await self.rules_for(rec.guild_id, rec.turn_timer),
            lobby_deadline=rec.lobby_deadline, turn_deadline=rec.turn_deadline,
            turn_reminded=rec.turn_reminded, family_seats=rec.family_seats)
        if rec.status is Status.FINISHED and rec.snapshot is not None:
            table.game = load(rec.snapshot)  # how it ended, for a final board owed
        elif rec.status is Status.PLAYING and not check and rec.snapshot is not None:
            table.game = load(rec.snapshot)  # a cache brought up to date: no replay
        elif rec.status is Status.PLAYING:
            table.game = check_snapshot(rec)
            if table.game.to_dict() != rec.snapshot:
                # The log won: write its state back so snapshot and log agree again.
                await self._store.games.record(
                    rec.id, [], table.game.to_dict(), now=self._clock.now(),
                    turn_deadline=rec.turn_deadline, turn_reminded=rec.turn_reminded)
        return table

    async def load_active(self) -> list[Table]:
        """Every lobby and game in play, checked; one that cannot be restored is logged
        and left in the database untouched."""
        tables = []
        for rec in await self._store.games.load_active():
            try:
                tables.append(await self.restore(rec))
            except StoreUnavailable:
                raise  # the database, not the game: nothing is wrong with it
            except Exception:
                log.exception("game %d could not be restored; it stays in the database "
                              "untouched", rec.id)
        return tables

    async def read_again(self, tables: Tables, game_id: int) -> None:
        """Bring ``tables``' table of ``game_id`` to what the store holds now (another
        process changed it, or a change of it was not saved); a game that ended there is
        dropped."""
        status, fresh = await self.load(game_id)
        if fresh is not None:
            tables.put(fresh)
            return
        old = tables.get(game_id)
        if old is not None:
            tables.close(old, status or Status.CANCELLED)

    async def ending(self, game_id: int) -> GameOver | None:
        """How a finished game ended, read from the store (None: not finished, or
        unknown)."""
        rec = await self._store.games.load_game(game_id)
        if rec is None or rec.status is not Status.FINISHED or rec.snapshot is None:
            return None
        return (await self.restore(rec, check=False)).ending()

    async def load(self, game_id: int, *, ended: bool = False
                   ) -> tuple[Status | None, Table | None]:
        """A game as stored now: (its status, its table if it is still active, or with
        ``ended`` also if it finished: how it ended). A game that does not exist is
        (None, None)."""
        rec = await self._store.games.load_game(game_id)
        if rec is None:
            return None, None
        if not rec.status.is_open and not (ended and rec.status is Status.FINISHED):
            return rec.status, None
        return rec.status, await self.restore(rec, check=False)


def check_snapshot(rec: GameRecord) -> Game:
    """The saved snapshot if the replayed log agrees with it; else, loudly, the log."""
    assert rec.seed is not None
    replayed = replay(rec.kind, len(rec.seats), rec.seed, rec.actions, **rec.options)
    state = replayed.to_dict()
    if rec.snapshot is not None and state == rec.snapshot:
        return load(rec.snapshot)
    log.error("game %d: the snapshot does not match its action log (%d actions, "
              "snapshot at %s); restoring from the log", rec.id, len(rec.actions),
              len(rec.snapshot["history"]) if rec.snapshot else "none")
    return replayed

