"""What really happened: the games as the database holds them, read from outside the bot.

The test reads the SQLite file with its own connection (only SELECTs, so the bot's writer
is never blocked for long) and replays each action log with the engine. That is the
referee for "nothing lost" (a committed log only ever grows) and for the invariants
(the stored snapshot equals the replayed log).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from engine.game import Game


@dataclass(frozen=True)
class SeatTruth:
    seat: int
    user_id: int | None
    level: str | None
    resigned: bool


@dataclass(frozen=True)
class GameTruth:
    id: int
    kind: str
    status: str
    channel_id: int
    host_id: int
    seed: int | None
    options: dict[str, Any]
    seats: tuple[SeatTruth, ...]
    actions: tuple[str, ...]
    snapshot: dict[str, Any] | None
    results: int  # rows in the results table

    def replayed(self) -> Game:
        assert self.seed is not None, "a lobby has no game yet"
        return engine.replay(self.kind, len(self.seats), self.seed, self.actions,
                             **self.options)

    def is_human(self, seat: int | None) -> bool:
        return seat is not None and self.seats[seat].level is None

    def user_of(self, seat: int | None) -> int | None:
        return None if seat is None else self.seats[seat].user_id

    def invariant_problems(self) -> list[str]:
        """Why this game's stored state is not what its own log says (empty: all well)."""
        problems = []
        if self.status in ("playing", "finished") and self.seed is not None:
            try:
                game = self.replayed()
            except engine.Refusal as exc:
                return [f"game {self.id}: its log does not replay: {exc.code}"]
            if self.snapshot is not None and game.to_dict() != self.snapshot:
                problems.append(f"game {self.id}: snapshot differs from the replayed log")
            if self.status == "finished" and not game.is_over:
                problems.append(f"game {self.id}: finished, but its log is not over")
            if self.status == "playing" and game.is_over:
                problems.append(f"game {self.id}: over in the log, still playing in the row")
            if self.status == "finished" and self.results != len(self.seats):
                problems.append(f"game {self.id}: {self.results} result rows for "
                                f"{len(self.seats)} seats")
        return problems


def read_games(database: Path) -> dict[int, GameTruth]:
    """Every game in the database, by id."""
    if not database.exists():
        return {}
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        rows = db.execute(
            "SELECT id, kind, status, channel_id, host_id, seed, options, snapshot "
            "FROM games ORDER BY id").fetchall()
        seats: dict[int, list[SeatTruth]] = {}
        for gid, seat, user, level, resigned in db.execute(
                "SELECT game_id, seat, user_id, level, resigned FROM seats "
                "ORDER BY game_id, seat"):
            seats.setdefault(gid, []).append(SeatTruth(seat, user, level, bool(resigned)))
        actions: dict[int, list[str]] = {}
        for gid, action in db.execute("SELECT game_id, action FROM actions ORDER BY game_id, ply"):
            actions.setdefault(gid, []).append(action)
        results = dict(db.execute("SELECT game_id, COUNT(*) FROM results GROUP BY game_id")
                       .fetchall())
    finally:
        db.close()
    out = {}
    for gid, kind, status, channel, host, seed, options, snapshot in rows:
        out[gid] = GameTruth(gid, kind, status, channel, host, seed, json.loads(options or "{}"),
                             tuple(seats.get(gid, [])), tuple(actions.get(gid, [])),
                             json.loads(snapshot) if snapshot else None, results.get(gid, 0))
    return out


def expected_boards(game: GameTruth) -> int:
    """Boards the bot should have posted for this game: the start and one per move (a Dice
    roll is private). The move that ends a game has the final board as its board (the
    result, the winning line and Rematch on the picture of that moment), not one more; a
    move after which the next seat could only pass shares the board of that pass (a pass
    is only ever forced, and made at once)."""
    if game.seed is None:
        return 0
    actions = game.actions
    return 1 + sum(1 for i, a in enumerate(actions)
                   if a != "roll" and actions[i + 1:i + 2] != ["pass"])
