"""The game log: lobbies, games, their seats and action logs, and server settings.

What the manager owns and nobody else writes. Each accepted move is one commit of its
own (``record``): the new history entries, the snapshot and, when the game ends, the
results, together.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .backend import Database, IntegrityError, Row, Tx, dumps
from .seats import Seat
from .status import OPEN_SQL, Status

log = logging.getLogger(__name__)


@dataclass
class GameRecord:
    """One row of ``games`` with its seats and its action log (ply order)."""

    id: int
    kind: str
    options: dict[str, Any]
    seed: int | None
    status: Status
    guild_id: int | None
    channel_id: int
    host_id: int
    snapshot: dict[str, Any] | None
    lobby_deadline: float | None
    turn_deadline: float | None
    turn_reminded: bool
    on_leave: str
    end_reason: str | None
    created_at: float
    updated_at: float
    turn_timer: float | None = None  # this game's own (0: none); None: the server's
    family_seats: bool = True
    seats: list[Seat] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ResultRecord:
    """One seat's result of a finished game."""

    seat: int
    user_id: int | None
    level: str | None
    name: str
    side: int
    outcome: str  # "win", "loss" or "draw"
    resigned: bool
    guardian: str | None = None  # a child's seat: the grown-up's name


@dataclass(frozen=True)
class GuildSettings:
    """A server's settings. ``turn_timer`` None (the default) means no turn timer."""

    guild_id: int
    locale: str = "en"
    turn_timer: float | None = None
    timeout_action: str = "computer"
    absences_to_free: int = 3
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)


class GameLog:
    """Games, seats, action logs and server settings, on the shared connection."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- lobbies -----------------------------------------------------------------------

    async def create_lobby(
        self,
        kind: str,
        options: dict[str, Any],
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        seats: Sequence[Seat],
        *,
        lobby_deadline: float | None,
        on_leave: str,
        now: float,
        turn_timer: float | None = None,
        family_seats: bool = True,
    ) -> int | None:
        """A new lobby; ``None`` if the channel already has a lobby or game in play.
        ``turn_timer``: this game's own (seconds, 0 for none; None: the server's)."""

        async def work(db: Tx) -> int:
            row = await db.fetchone(
                "INSERT INTO games (kind, options, status, guild_id, channel_id, host_id,"
                " lobby_deadline, on_leave, created_at, updated_at, turn_timer, family_seats)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (kind, dumps(options), Status.LOBBY.value, guild_id, channel_id, host_id,
                 lobby_deadline, on_leave, now, now, turn_timer, family_seats),
            )
            assert row is not None
            game_id = int(row[0])
            await _write_seats(db, game_id, seats)
            return game_id

        try:
            return await self._db.write(work)
        except IntegrityError:
            return None

    async def save_lobby(
        self, game_id: int, seats: Sequence[Seat], *, lobby_deadline: float | None,
        now: float,
    ) -> None:
        async def work(db: Tx) -> None:
            await db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            await _write_seats(db, game_id, seats)
            await db.execute("UPDATE games SET lobby_deadline = ?, updated_at = ? WHERE id = ?",
                       (lobby_deadline, now, game_id))

        await self._db.write(work)

    async def set_status(
        self, game_id: int, status: Status, *, now: float, end_reason: str | None = None
    ) -> None:
        """Close a lobby or stop a game without a result (cancelled)."""

        async def work(db: Tx) -> None:
            await db.execute(
                "UPDATE games SET status = ?, end_reason = ?, lobby_deadline = NULL,"
                " turn_deadline = NULL, updated_at = ? WHERE id = ?",
                (Status(status).value, end_reason, now, game_id),
            )

        await self._db.write(work)

    async def move_game(self, game_id: int, channel_id: int, *, now: float) -> None:
        """A game goes on in another channel (a thread of its own), for good."""

        async def work(db: Tx) -> None:
            await db.execute("UPDATE games SET channel_id = ?, updated_at = ? WHERE id = ?",
                       (channel_id, now, game_id))

        await self._db.write(work)

    # -- games -------------------------------------------------------------------------

    async def start_game(
        self,
        game_id: int,
        *,
        seed: int,
        options: dict[str, Any],
        snapshot: dict[str, Any],
        seats: Sequence[Seat],
        turn_deadline: float | None,
        now: float,
    ) -> None:
        async def work(db: Tx) -> None:
            await db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            await _write_seats(db, game_id, seats)
            await db.execute(
                "UPDATE games SET status = ?, seed = ?, options = ?, snapshot = ?,"
                " lobby_deadline = NULL, turn_deadline = ?, turn_reminded = ?,"
                " updated_at = ? WHERE id = ?",
                (Status.PLAYING.value, seed, dumps(options), dumps(snapshot), turn_deadline, False,
                 now, game_id),
            )

        await self._db.write(work)

    async def record(
        self,
        game_id: int,
        entries: Sequence[tuple[int, int | None, str]],
        snapshot: dict[str, Any],
        *,
        now: float,
        turn_deadline: float | None,
        turn_reminded: bool = False,
        seats: Sequence[Seat] | None = None,
        results: Sequence[ResultRecord] | None = None,
        end_reason: str | None = None,
        request_id: str | None = None,
    ) -> None:
        """Commit accepted history entries ``(ply, seat, action)`` with the new snapshot,
        in one transaction. With ``results`` the game is finished in the same commit.
        ``request_id``: the request that made the change, stored with its first entry
        (``ply_of_request`` finds it again); a request already stored in this game is an
        ``IntegrityError``, and nothing is written."""
        status = (Status.FINISHED if results is not None else Status.PLAYING).value
        snapshot_json = dumps(snapshot)
        seat_rows = [(s.user_id, s.level, s.name, s.left, s.resigned, s.absences, s.guardian,
                      game_id, s.index) for s in seats or ()]
        first = min((ply for ply, _, _ in entries), default=None)

        async def work(db: Tx) -> None:
            await db.executemany(
                "INSERT INTO actions (game_id, ply, seat, action, at, request_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(game_id, ply, seat, action, now, request_id if ply == first else None)
                 for ply, seat, action in entries],
            )
            await db.execute(
                "UPDATE games SET snapshot = ?, status = ?, turn_deadline = ?,"
                " turn_reminded = ?, end_reason = ?, end_shown = ?, updated_at = ?"
                " WHERE id = ?",
                # a game's end is not shown yet when it is committed (``end_shown``)
                (snapshot_json, status, turn_deadline, turn_reminded, end_reason,
                 results is None, now, game_id),
            )
            if seat_rows:
                await db.executemany(
                    "UPDATE seats SET user_id = ?, level = ?, name = ?, left_game = ?,"
                    " resigned = ?, absences = ?, guardian = ? WHERE game_id = ? AND seat = ?",
                    seat_rows)
            if results is not None:
                row = await db.fetchone(
                    "SELECT kind, guild_id FROM games WHERE id = ?", (game_id,))
                assert row is not None
                kind, guild_id = row[0], row[1]
                await db.executemany(
                    "INSERT INTO results (game_id, seat, user_id, level, name, kind,"
                    " guild_id, side, outcome, resigned, finished_at, guardian)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(game_id, r.seat, r.user_id, r.level, r.name, kind, guild_id, r.side,
                      r.outcome, r.resigned, now, r.guardian) for r in results],
                )

        await self._db.write(work)

    async def save_timers(
        self,
        game_id: int,
        *,
        turn_deadline: float | None,
        turn_reminded: bool,
        seats: Sequence[Seat] = (),
        now: float,
    ) -> None:
        """Store the turn timer's state (a reminder sent, an absence counted)."""

        async def work(db: Tx) -> None:
            await db.execute(
                "UPDATE games SET turn_deadline = ?, turn_reminded = ?, updated_at = ?"
                " WHERE id = ?",
                (turn_deadline, turn_reminded, now, game_id),
            )
            await db.executemany(
                "UPDATE seats SET absences = ? WHERE game_id = ? AND seat = ?",
                [(s.absences, game_id, s.index) for s in seats],
            )

        await self._db.write(work)

    # -- loading -----------------------------------------------------------------------

    _GAME_COLUMNS = (
        "id, kind, options, seed, status, guild_id, channel_id, host_id, snapshot,"
        " lobby_deadline, turn_deadline, turn_reminded, on_leave, end_reason, created_at,"
        " updated_at, turn_timer, family_seats"
    )

    async def bot_fact(self, key: str) -> str | None:
        """A small fact the bot keeps about itself (e.g. the last command sync's digest),
        in the database so every process sharing it sees the same."""

        async def work(db: Tx) -> str | None:
            row = await db.fetchone("SELECT value FROM bot_state WHERE key = ?", (key,))
            return None if row is None else str(row[0])

        return await self._db.read(work)

    async def save_bot_fact(self, key: str, value: str, *, now: float) -> None:
        async def work(db: Tx) -> None:
            await db.execute(
                "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value,"
                " updated_at = excluded.updated_at", (key, value, now))

        await self._db.write(work)

    async def load_active(self) -> list[GameRecord]:
        """Every lobby and every game in play, with seats and action logs."""

        async def work(db: Tx) -> list[GameRecord]:
            rows = await db.fetchall(
                f"SELECT {self._GAME_COLUMNS} FROM games"
                " WHERE status IN " + OPEN_SQL + " ORDER BY id")
            return [await _complete(db, row) for row in rows]

        return await self._db.read(work)

    async def load_game(self, game_id: int) -> GameRecord | None:
        if not 0 < game_id < 2**63:  # 64-bit ids in both backends; from (forgeable) buttons
            return None

        async def work(db: Tx) -> GameRecord | None:
            row = await db.fetchone(f"SELECT {self._GAME_COLUMNS} FROM games WHERE id = ?",
                                    (game_id,))
            return await _complete(db, row) if row else None

        return await self._db.read(work)

    # -- settings ----------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        row = await self._db.fetchone(
            "SELECT locale, turn_timer, timeout_action, absences_to_free, defaults"
            " FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if row is None:
            return GuildSettings(guild_id)
        return GuildSettings(guild_id, locale=row[0], turn_timer=row[1],
                             timeout_action=row[2], absences_to_free=row[3],
                             defaults=json.loads(row[4]))

    async def save_guild_settings(self, s: GuildSettings, *, now: float | None = None) -> None:
        async def work(db: Tx) -> None:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, locale, turn_timer, timeout_action,"
                " absences_to_free, defaults, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET locale = excluded.locale,"
                " turn_timer = excluded.turn_timer, timeout_action = excluded.timeout_action,"
                " absences_to_free = excluded.absences_to_free, defaults = excluded.defaults,"
                " updated_at = excluded.updated_at",
                (s.guild_id, s.locale, s.turn_timer, s.timeout_action, s.absences_to_free,
                 dumps(s.defaults), time.time() if now is None else now),
            )

        await self._db.write(work)

    async def guild_locales(self) -> dict[int, str]:
        """The language of every server that has saved its settings (the Discord layer
        falls back to the server's own Discord language for the others)."""
        rows = await self._db.fetchall("SELECT guild_id, locale FROM guild_settings")
        return {r[0]: r[1] for r in rows}

    async def ends_not_shown(self) -> list[int]:
        """The finished games whose final board has not got out (``end_shown``)."""
        rows = await self._db.fetchall(
            "SELECT id FROM games WHERE status = ? AND end_shown = ? ORDER BY id",
            (Status.FINISHED.value, False))
        return [int(r[0]) for r in rows]

    async def end_is_shown(self, game_id: int) -> bool:
        row = await self._db.fetchone("SELECT end_shown FROM games WHERE id = ?", (game_id,))
        return row is None or bool(row[0])

    async def end_shown(self, game_id: int) -> None:
        """The game's final board got out."""

        async def work(db: Tx) -> None:
            await db.execute("UPDATE games SET end_shown = ? WHERE id = ?", (True, game_id))

        await self._db.write(work)

    async def ply_of_request(self, game_id: int, request_id: str) -> int | None:
        """The ply of the move that ``request_id`` made in this game, if the store holds
        it: what a commit whose answer was lost really did."""
        row = await self._db.fetchone(
            "SELECT ply FROM actions WHERE game_id = ? AND request_id = ?",
            (game_id, request_id))
        return None if row is None else int(row[0])

    async def last_ply(self, game_id: int) -> int:
        """The ply of the game's last stored move (-1: none yet)."""
        row = await self._db.fetchone("SELECT MAX(ply) FROM actions WHERE game_id = ?",
                                      (game_id,))
        return -1 if row is None or row[0] is None else int(row[0])

    async def history(self, game_id: int) -> list[tuple[int, int | None, str, float]]:
        """The action log of a game: (ply, seat, action, at)."""
        rows = await self._db.fetchall(
            "SELECT ply, seat, action, at FROM actions WHERE game_id = ? ORDER BY ply",
            (game_id,))
        return [(r[0], r[1], r[2], r[3]) for r in rows]


async def _write_seats(db: Tx, game_id: int, seats: Iterable[Seat]) -> None:
    await db.executemany(
        "INSERT INTO seats (game_id, seat, user_id, level, name, left_game, resigned,"
        " absences, guardian) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(game_id, s.index, s.user_id, s.level, s.name, s.left, s.resigned,
          s.absences, s.guardian) for s in seats],
    )


async def _complete(db: Tx, row: Row) -> GameRecord:
    """A games row with its seats and its action log (cut at the first hole, loudly)."""
    rec = GameRecord(
        id=row[0], kind=row[1], options=json.loads(row[2]), seed=row[3], status=Status(row[4]),
        guild_id=row[5], channel_id=row[6], host_id=row[7],
        snapshot=json.loads(row[8]) if row[8] else None, lobby_deadline=row[9],
        turn_deadline=row[10], turn_reminded=bool(row[11]), on_leave=row[12],
        end_reason=row[13], created_at=row[14], updated_at=row[15], turn_timer=row[16],
        family_seats=bool(row[17]),
    )
    seats = await db.fetchall(
        "SELECT seat, user_id, level, name, left_game, resigned, absences, guardian"
        " FROM seats WHERE game_id = ? ORDER BY seat", (rec.id,))
    rec.seats = [Seat(index=s[0], user_id=s[1], level=s[2], name=s[3],
                     left=bool(s[4]), resigned=bool(s[5]), absences=s[6], guardian=s[7])
                 for s in seats]
    actions = await db.fetchall(
        "SELECT ply, action FROM actions WHERE game_id = ? ORDER BY ply", (rec.id,))
    for expected, row in enumerate(actions):
        if row[0] != expected:
            log.error("game %d: action log has a hole at ply %d", rec.id, expected)
            break
        rec.actions.append(row[1])
    return rec
