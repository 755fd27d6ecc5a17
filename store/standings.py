"""The standings: what the finished games' results say (read only).

The results are written by the game log, in the same commit as a game's last move; this
part only reads them: a person's record, the leaderboards, the computer players' record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .backend import Database


def _count(outcome: str) -> str:
    """How many rows of a group have this outcome, in SQL both backends read (PostgreSQL
    cannot SUM a boolean)."""
    return f"SUM(CASE WHEN outcome = '{outcome}' THEN 1 ELSE 0 END)"


WINS, LOSSES, DRAWS = _count("win"), _count("loss"), _count("draw")
# Written out, not through the output aliases: PostgreSQL allows an alias alone in ORDER BY
# but not inside an expression.
WIN_RATE = f"(1.0 * {WINS} / COUNT(*))"
# Who a result row belongs to within an account: the person (guardian NULL) or one of their
# children by name, so a family's Emma is never merged with her grown-up or another's Emma.
WHO = "CASE WHEN guardian IS NULL THEN '' ELSE name END"


def _narrow(where: list[str], params: list[Any], guild_id: int | None, kind: str | None
            ) -> None:
    """Add "in this server" and "of this game" to a query's terms, when asked."""
    if guild_id is not None:
        where.append("guild_id = ?")
        params.append(guild_id)
    if kind is not None:
        where.append("kind = ?")
        params.append(kind)


def _whose(child: str | None) -> list[str]:
    """The WHERE terms for a person's own rows, or their child's (params: user, [name])."""
    if child is None:
        return ["user_id = ?", "guardian IS NULL"]
    return ["user_id = ?", "guardian IS NOT NULL", "name = ?"]


class _Record:
    """A record of games and wins (each subclass is a dataclass that has both fields)."""

    games: int
    wins: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True)
class KindStats(_Record):
    games: int
    wins: int
    losses: int
    draws: int


@dataclass(frozen=True)
class Stats(_Record):
    """A player's record over finished games (optionally one server / one game kind)."""

    user_id: int
    games: int
    wins: int
    losses: int
    draws: int
    per_kind: dict[str, KindStats]


@dataclass(frozen=True)
class LeaderRow(_Record):
    """A person, or a child who plays from a grown-up's account (``guardian``: the
    grown-up's name; ``user_id`` the grown-up's account)."""

    user_id: int
    name: str
    games: int
    wins: int
    guardian: str | None = None


@dataclass(frozen=True)
class ResultLine:
    """One finished game of one player, for streaks and favourite colours."""

    game_id: int
    kind: str
    side: int
    outcome: str  # "win", "loss" or "draw"
    finished_at: float


@dataclass(frozen=True)
class LevelRow(_Record):
    """The record of the computer players of one level (they are never ranked with people)."""

    level: str
    games: int
    wins: int


class Standings:
    """Reading the results of finished games, on the shared connection."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def stats(
        self, user_id: int, *, guild_id: int | None = None, kind: str | None = None,
        child: str | None = None,
    ) -> Stats:
        """Games, wins, losses, draws and win rate of a person, per game kind; with
        ``child``, of that child of theirs (a family seat), kept apart from their own."""
        where, params = [*_whose(child)], [user_id, *([child] if child else [])]
        _narrow(where, params, guild_id, kind)
        rows = await self._db.fetchall(
            f"SELECT kind, COUNT(*), {WINS}, {LOSSES}, {DRAWS}"
            " FROM results WHERE " + " AND ".join(where)
            + " GROUP BY kind ORDER BY kind", params)
        per_kind = {r[0]: KindStats(r[1], r[2], r[3], r[4]) for r in rows}
        return Stats(
            user_id=user_id,
            games=sum(k.games for k in per_kind.values()),
            wins=sum(k.wins for k in per_kind.values()),
            losses=sum(k.losses for k in per_kind.values()),
            draws=sum(k.draws for k in per_kind.values()),
            per_kind=per_kind,
        )

    async def leaderboard(
        self, guild_id: int | None, *, kind: str | None = None, limit: int = 10
    ) -> list[LeaderRow]:
        """People by wins, then win rate (computer players are not ranked)."""
        where: list[str] = ["user_id IS NOT NULL"]
        params: list[Any] = []
        _narrow(where, params, guild_id, kind)
        params.append(max(1, min(int(limit), 100)))
        rows = await self._db.fetchall(
            f"SELECT user_id, MAX(name), COUNT(*) AS games, {WINS} AS wins, MAX(guardian)"
            f" FROM results WHERE " + " AND ".join(where)
            + f" GROUP BY user_id, {WHO} ORDER BY wins DESC, {WIN_RATE} DESC,"
            " games DESC, user_id LIMIT ?", params)
        return [LeaderRow(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    async def results_of(
        self, user_id: int, *, guild_id: int | None = None, kind: str | None = None,
        child: str | None = None,
    ) -> list[ResultLine]:
        """A person's finished games, newest first (for the current streak and colours);
        with ``child``, their child's."""
        where, params = [*_whose(child)], [user_id, *([child] if child else [])]
        _narrow(where, params, guild_id, kind)
        rows = await self._db.fetchall(
            "SELECT game_id, kind, side, outcome, finished_at FROM results WHERE "
            + " AND ".join(where) + " ORDER BY finished_at DESC, game_id DESC", params)
        return [ResultLine(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    async def ranking(
        self, guild_id: int | None, *, kind: str | None = None, min_games: int = 1,
        limit: int = 10,
    ) -> list[LeaderRow]:
        """People with at least ``min_games`` games, best win rate first (then wins).

        Unlike ``leaderboard`` (most wins first), a newcomer with few games cannot top it
        by luck, and a keen player does not top it by volume alone."""
        where: list[str] = ["user_id IS NOT NULL"]
        params: list[Any] = []
        _narrow(where, params, guild_id, kind)
        params += [max(1, int(min_games)), max(1, min(int(limit), 100))]
        rows = await self._db.fetchall(
            f"SELECT user_id, MAX(name), COUNT(*) AS games, {WINS} AS wins, MAX(guardian)"
            " FROM results WHERE " + " AND ".join(where)
            + f" GROUP BY user_id, {WHO} HAVING COUNT(*) >= ?"
            f" ORDER BY {WIN_RATE} DESC, wins DESC, games DESC, user_id"
            " LIMIT ?", params)
        return [LeaderRow(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    async def children_of(self, user_id: int, *, guild_id: int | None = None,
                          kind: str | None = None) -> list[str]:
        """The children (family seats) a grown-up played for, by name, with results."""
        where, params = ["user_id = ?", "guardian IS NOT NULL"], [user_id]
        _narrow(where, params, guild_id, kind)
        rows = await self._db.fetchall(
            "SELECT DISTINCT name FROM results WHERE " + " AND ".join(where)
            + " ORDER BY name", params)
        return [str(r[0]) for r in rows]

    async def computer_standings(
        self, guild_id: int | None, *, kind: str | None = None
    ) -> list[LevelRow]:
        """The computer players' record per level (easy, medium, hard), in that order."""
        where: list[str] = ["user_id IS NULL", "level IS NOT NULL"]
        params: list[Any] = []
        _narrow(where, params, guild_id, kind)
        rows = await self._db.fetchall(
            f"SELECT level, COUNT(*), {WINS} FROM results WHERE "
            + " AND ".join(where) + " GROUP BY level", params)
        order = {"easy": 0, "medium": 1, "hard": 2}
        return sorted((LevelRow(r[0], r[1], r[2]) for r in rows),
                      key=lambda row: (order.get(row.level, 9), row.level))
