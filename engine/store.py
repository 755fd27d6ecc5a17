"""The aiosqlite store: lobbies, games, their action logs, server settings and results.

One SQLite file, one long-lived connection. Why the lock: aiosqlite runs every statement
on one worker thread, so two coroutines sharing the connection without a lock interleave
their statements and one game's writes land in another game's commit (or a commit lands
half-way through another game's transaction). Every transaction here takes the lock, so
each accepted move is exactly one commit of its own.

Durability: WAL with ``synchronous=FULL``: a commit that returned survives a power cut,
which is what lets the manager announce a move right after committing it.

The schema is the numbered SQL files in ``engine/migrations`` applied in order; the
number of the last one applied is ``PRAGMA user_version``. A database written by an older
version is upgraded in place, never dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
DEFAULT_PATH = Path("data") / "sequence.sqlite3"
T = TypeVar("T")


@dataclass
class SeatRecord:
    """One seat as stored: a person (``user_id``) or a computer player (``level``)."""

    seat: int
    user_id: int | None
    name: str
    level: str | None = None
    left: bool = False
    resigned: bool = False
    absences: int = 0


@dataclass
class GameRecord:
    """One row of ``games`` with its seats and its action log (ply order)."""

    id: int
    kind: str
    options: dict[str, Any]
    seed: int | None
    status: str
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
    seats: list[SeatRecord] = field(default_factory=list)
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


@dataclass(frozen=True)
class GuildSettings:
    """A server's settings. ``turn_timer`` None (the default) means no turn timer."""

    guild_id: int
    locale: str = "en"
    turn_timer: float | None = None
    timeout_action: str = "computer"
    absences_to_free: int = 3
    defaults: dict[str, dict[str, Any]] = field(default_factory=dict)


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
    user_id: int
    name: str
    games: int
    wins: int


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


@dataclass(frozen=True)
class TableManners:
    """How a server's games sit in its channels (settings of the Discord layer)."""

    guild_id: int
    own_thread: bool = False
    tidy_boards: bool = False


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


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class Store:
    """The SQLite store. Open with ``await Store.open(path)``; always ``close()`` it
    (aiosqlite's worker thread is not a daemon: an open store keeps the process alive)."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = asyncio.Lock()
        self.schema_version = 0
        self.group_commit = True
        self._pending: list[tuple[Callable[[sqlite3.Connection], Any], asyncio.Future[Any]]] = []
        self._flusher: asyncio.Task[None] | None = None

    # -- opening and closing ----------------------------------------------------------

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

        ``upto`` stops after that migration: only tests use it, to write an old database.
        """
        p = Path(path)
        if str(p) != ":memory:":
            p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not p.exists():
                # Owner-only from the first byte; SQLite gives -wal/-shm the same mode.
                os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o600))
        conn = await aiosqlite.connect(str(p), isolation_level=None)
        try:
            await conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = FULL")
            await conn.execute("PRAGMA foreign_keys = ON")
            store = cls(conn, p)
            store.group_commit = group_commit
            await store._migrate(upto)
        except BaseException:
            await conn.close()
            raise
        return store

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
        async with self._lock:
            await self._conn.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _migrate(self, upto: int | None) -> None:
        async with self._lock:
            row = await self._fetchone("PRAGMA user_version")
            version = int(row[0]) if row else 0
            for number, path in migration_files():
                if number <= version or (upto is not None and number > upto):
                    continue
                log.info("migrating %s to schema %d (%s)", self.path, number, path.name)
                sql = path.read_text(encoding="utf-8")
                # One transaction per migration: it applies whole or not at all.
                await self._conn.executescript(
                    f"BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {number};\nCOMMIT;"
                )
                version = number
            self.schema_version = version

    async def pragma(self, name: str) -> Any:
        """The value of a PRAGMA (for tests and diagnostics)."""
        if not name.replace("_", "").isalpha():
            raise ValueError(f"not a pragma name: {name!r}")
        row = await self._fetchone(f"PRAGMA {name}")
        return row[0] if row else None

    # -- plumbing -----------------------------------------------------------------------

    async def _fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        async with self._conn.execute(sql, params) as cur:
            return await cur.fetchone()

    async def _fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(await self._conn.execute_fetchall(sql, params))

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` atomically and durably; return when it is committed.

        Why not ``await db.execute(...)`` statement by statement: each await is a hop to
        aiosqlite's thread and back (0.2 to 1 ms on a busy machine), and a move is five
        statements. Here a transaction is one hop (``Connection._execute`` is aiosqlite's
        own queue; the version is pinned <0.23 in pyproject.toml).

        Group commit: writes that arrive while a commit is in progress wait and then go
        together in the next transaction, one SAVEPOINT each, so one fsync makes a whole
        batch durable. Each write still applies whole or not at all, and one that fails
        is rolled back to its savepoint without touching the others. Nobody hears of a
        write before the COMMIT that contains it returned.
        """
        if not self.group_commit:
            async with self._lock:
                outcome = await self._conn._execute(  # type: ignore[no-untyped-call]
                    _run_batch, self._conn._conn, [work])
            single: T = _unwrap(outcome[0])
            return single
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((work, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_writes())
        result: T = await future
        return result

    async def _flush_writes(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                async with self._lock:
                    outcomes = await self._conn._execute(  # type: ignore[no-untyped-call]
                        _run_batch, self._conn._conn, [w for w, _ in batch])
            except BaseException as exc:  # the COMMIT itself failed: nothing is durable
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for (_, future), outcome in zip(batch, outcomes, strict=True):
                if future.done():
                    continue
                if isinstance(outcome, _Failed):
                    future.set_exception(outcome.error)
                else:
                    future.set_result(outcome)

    async def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` (reads only) in the connection's thread, in one hop."""

        def run() -> T:
            return work(self._conn._conn)

        async with self._lock:
            result: T = await self._conn._execute(run)  # type: ignore[no-untyped-call]
            return result

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One serialised write transaction: commit on success, roll back on error."""
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")

    # -- lobbies -----------------------------------------------------------------------

    async def create_lobby(
        self,
        kind: str,
        options: dict[str, Any],
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        seats: Sequence[SeatRecord],
        *,
        lobby_deadline: float | None,
        on_leave: str,
        now: float,
    ) -> int | None:
        """A new lobby; ``None`` if the channel already has a lobby or game in play."""

        def work(db: sqlite3.Connection) -> int:
            cur = db.execute(
                "INSERT INTO games (kind, options, status, guild_id, channel_id, host_id,"
                " lobby_deadline, on_leave, created_at, updated_at)"
                " VALUES (?, ?, 'lobby', ?, ?, ?, ?, ?, ?, ?)",
                (kind, _dumps(options), guild_id, channel_id, host_id, lobby_deadline,
                 on_leave, now, now),
            )
            game_id = cur.lastrowid
            assert game_id is not None
            _write_seats(db, game_id, seats)
            return int(game_id)

        try:
            return await self._write(work)
        except sqlite3.IntegrityError:
            return None

    async def save_lobby(
        self, game_id: int, seats: Sequence[SeatRecord], *, lobby_deadline: float | None,
        now: float,
    ) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            _write_seats(db, game_id, seats)
            db.execute("UPDATE games SET lobby_deadline = ?, updated_at = ? WHERE id = ?",
                       (lobby_deadline, now, game_id))

        await self._write(work)

    async def set_status(
        self, game_id: int, status: str, *, now: float, end_reason: str | None = None
    ) -> None:
        """Close a lobby or stop a game without a result (cancelled)."""

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE games SET status = ?, end_reason = ?, lobby_deadline = NULL,"
                " turn_deadline = NULL, updated_at = ? WHERE id = ?",
                (status, end_reason, now, game_id),
            )

        await self._write(work)

    async def move_game(self, game_id: int, channel_id: int, *, now: float) -> None:
        """A game goes on in another channel (a thread of its own), for good."""

        def work(db: sqlite3.Connection) -> None:
            db.execute("UPDATE games SET channel_id = ?, updated_at = ? WHERE id = ?",
                       (channel_id, now, game_id))

        await self._write(work)

    # -- games -------------------------------------------------------------------------

    async def start_game(
        self,
        game_id: int,
        *,
        seed: int,
        options: dict[str, Any],
        snapshot: dict[str, Any],
        seats: Sequence[SeatRecord],
        turn_deadline: float | None,
        now: float,
    ) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            _write_seats(db, game_id, seats)
            db.execute(
                "UPDATE games SET status = 'playing', seed = ?, options = ?, snapshot = ?,"
                " lobby_deadline = NULL, turn_deadline = ?, turn_reminded = 0,"
                " updated_at = ? WHERE id = ?",
                (seed, _dumps(options), _dumps(snapshot), turn_deadline, now, game_id),
            )

        await self._write(work)

    async def record(
        self,
        game_id: int,
        entries: Sequence[tuple[int, int | None, str]],
        snapshot: dict[str, Any],
        *,
        now: float,
        turn_deadline: float | None,
        turn_reminded: bool = False,
        seats: Sequence[SeatRecord] | None = None,
        results: Sequence[ResultRecord] | None = None,
        end_reason: str | None = None,
    ) -> None:
        """Commit accepted history entries ``(ply, seat, action)`` with the new snapshot,
        in one transaction. With ``results`` the game is finished in the same commit."""
        status = "finished" if results is not None else "playing"
        snapshot_json = _dumps(snapshot)
        seat_rows = [(s.user_id, s.level, s.name, int(s.left), int(s.resigned), s.absences,
                      game_id, s.seat) for s in seats or ()]

        def work(db: sqlite3.Connection) -> None:
            db.executemany(
                "INSERT INTO actions (game_id, ply, seat, action, at) VALUES (?, ?, ?, ?, ?)",
                [(game_id, ply, seat, action, now) for ply, seat, action in entries],
            )
            db.execute(
                "UPDATE games SET snapshot = ?, status = ?, turn_deadline = ?,"
                " turn_reminded = ?, end_reason = ?, updated_at = ? WHERE id = ?",
                (snapshot_json, status, turn_deadline, int(turn_reminded), end_reason,
                 now, game_id),
            )
            if seat_rows:
                db.executemany(
                    "UPDATE seats SET user_id = ?, level = ?, name = ?, left_game = ?,"
                    " resigned = ?, absences = ? WHERE game_id = ? AND seat = ?", seat_rows)
            if results is not None:
                kind, guild_id = db.execute(
                    "SELECT kind, guild_id FROM games WHERE id = ?", (game_id,)).fetchone()
                db.executemany(
                    "INSERT INTO results (game_id, seat, user_id, level, name, kind,"
                    " guild_id, side, outcome, resigned, finished_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(game_id, r.seat, r.user_id, r.level, r.name, kind, guild_id, r.side,
                      r.outcome, int(r.resigned), now) for r in results],
                )

        await self._write(work)

    async def save_timers(
        self,
        game_id: int,
        *,
        turn_deadline: float | None,
        turn_reminded: bool,
        seats: Sequence[SeatRecord] = (),
        now: float,
    ) -> None:
        """Store the turn timer's state (a reminder sent, an absence counted)."""

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE games SET turn_deadline = ?, turn_reminded = ?, updated_at = ?"
                " WHERE id = ?",
                (turn_deadline, int(turn_reminded), now, game_id),
            )
            db.executemany(
                "UPDATE seats SET absences = ? WHERE game_id = ? AND seat = ?",
                [(s.absences, game_id, s.seat) for s in seats],
            )

        await self._write(work)

    # -- loading -----------------------------------------------------------------------

    _GAME_COLUMNS = (
        "id, kind, options, seed, status, guild_id, channel_id, host_id, snapshot,"
        " lobby_deadline, turn_deadline, turn_reminded, on_leave, end_reason, created_at,"
        " updated_at"
    )

    async def load_active(self) -> list[GameRecord]:
        """Every lobby and every game in play, with seats and action logs."""

        def work(db: sqlite3.Connection) -> list[GameRecord]:
            rows = db.execute(
                f"SELECT {self._GAME_COLUMNS} FROM games"
                " WHERE status IN ('lobby', 'playing') ORDER BY id").fetchall()
            return [_complete(db, row) for row in rows]

        return await self._read(work)

    async def load_game(self, game_id: int) -> GameRecord | None:
        if not 0 < game_id < 2**63:  # SQLite's integers; ids come from (forgeable) buttons
            return None

        def work(db: sqlite3.Connection) -> GameRecord | None:
            row = db.execute(f"SELECT {self._GAME_COLUMNS} FROM games WHERE id = ?",
                             (game_id,)).fetchone()
            return _complete(db, row) if row else None

        return await self._read(work)

    # -- settings ----------------------------------------------------------------------

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        async with self._lock:
            row = await self._fetchone(
                "SELECT locale, turn_timer, timeout_action, absences_to_free, defaults"
                " FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if row is None:
            return GuildSettings(guild_id)
        return GuildSettings(guild_id, locale=row[0], turn_timer=row[1],
                             timeout_action=row[2], absences_to_free=row[3],
                             defaults=json.loads(row[4]))

    async def save_guild_settings(self, s: GuildSettings, *, now: float | None = None) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, locale, turn_timer, timeout_action,"
                " absences_to_free, defaults, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET locale = excluded.locale,"
                " turn_timer = excluded.turn_timer, timeout_action = excluded.timeout_action,"
                " absences_to_free = excluded.absences_to_free, defaults = excluded.defaults,"
                " updated_at = excluded.updated_at",
                (s.guild_id, s.locale, s.turn_timer, s.timeout_action, s.absences_to_free,
                 _dumps(s.defaults), time.time() if now is None else now),
            )

    # -- stats -------------------------------------------------------------------------

    async def stats(
        self, user_id: int, *, guild_id: int | None = None, kind: str | None = None
    ) -> Stats:
        """Games, wins, losses, draws and win rate of a person, per game kind."""
        where, params = ["user_id = ?"], [user_id]
        if guild_id is not None:
            where.append("guild_id = ?")
            params.append(guild_id)
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)  # type: ignore[arg-type]
        async with self._lock:
            rows = await self._fetchall(
                "SELECT kind, COUNT(*), SUM(outcome = 'win'), SUM(outcome = 'loss'),"
                " SUM(outcome = 'draw') FROM results WHERE " + " AND ".join(where)
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
        if guild_id is not None:
            where.append("guild_id = ?")
            params.append(guild_id)
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        params.append(max(1, min(int(limit), 100)))
        async with self._lock:
            rows = await self._fetchall(
                "SELECT user_id, MAX(name), COUNT(*) AS games, SUM(outcome = 'win') AS wins"
                " FROM results WHERE " + " AND ".join(where)
                + " GROUP BY user_id ORDER BY wins DESC, CAST(wins AS REAL) / games DESC,"
                " games DESC, user_id LIMIT ?", params)
        return [LeaderRow(r[0], r[1], r[2], r[3]) for r in rows]

    async def results_of(
        self, user_id: int, *, guild_id: int | None = None, kind: str | None = None
    ) -> list[ResultLine]:
        """A person's finished games, newest first (for the current streak and colours)."""
        where, params = ["user_id = ?"], [user_id]
        if guild_id is not None:
            where.append("guild_id = ?")
            params.append(guild_id)
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)  # type: ignore[arg-type]
        async with self._lock:
            rows = await self._fetchall(
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
        if guild_id is not None:
            where.append("guild_id = ?")
            params.append(guild_id)
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        params += [max(1, int(min_games)), max(1, min(int(limit), 100))]
        async with self._lock:
            rows = await self._fetchall(
                "SELECT user_id, MAX(name), COUNT(*) AS games, SUM(outcome = 'win') AS wins"
                " FROM results WHERE " + " AND ".join(where)
                + " GROUP BY user_id HAVING games >= ?"
                " ORDER BY CAST(wins AS REAL) / games DESC, wins DESC, games DESC, user_id"
                " LIMIT ?", params)
        return [LeaderRow(r[0], r[1], r[2], r[3]) for r in rows]

    async def computer_standings(
        self, guild_id: int | None, *, kind: str | None = None
    ) -> list[LevelRow]:
        """The computer players' record per level (easy, medium, hard), in that order."""
        where: list[str] = ["user_id IS NULL", "level IS NOT NULL"]
        params: list[Any] = []
        if guild_id is not None:
            where.append("guild_id = ?")
            params.append(guild_id)
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        async with self._lock:
            rows = await self._fetchall(
                "SELECT level, COUNT(*), SUM(outcome = 'win') FROM results WHERE "
                + " AND ".join(where) + " GROUP BY level", params)
        order = {"easy": 0, "medium": 1, "hard": 2}
        return sorted((LevelRow(r[0], r[1], r[2]) for r in rows),
                      key=lambda row: (order.get(row.level, 9), row.level))

    async def guild_locales(self) -> dict[int, str]:
        """The language of every server that has saved its settings (the Discord layer
        falls back to the server's own Discord language for the others)."""
        async with self._lock:
            rows = await self._fetchall("SELECT guild_id, locale FROM guild_settings")
        return {r[0]: r[1] for r in rows}

    async def table_manners(self, guild_id: int) -> TableManners:
        async with self._lock:
            row = await self._fetchone(
                "SELECT own_thread, tidy_boards FROM guild_table_manners WHERE guild_id = ?",
                (guild_id,))
        if row is None:
            return TableManners(guild_id)
        return TableManners(guild_id, own_thread=bool(row[0]), tidy_boards=bool(row[1]))

    async def tidy_guilds(self) -> set[int]:
        """The servers that keep only the latest board message of a game."""
        async with self._lock:
            rows = await self._fetchall(
                "SELECT guild_id FROM guild_table_manners WHERE tidy_boards = 1")
        return {r[0] for r in rows}

    async def thread_guilds(self) -> set[int]:
        """The servers whose games each run in a thread of their own."""
        async with self._lock:
            rows = await self._fetchall(
                "SELECT guild_id FROM guild_table_manners WHERE own_thread = 1")
        return {r[0] for r in rows}

    async def save_table_manners(self, m: TableManners, *, now: float | None = None) -> None:
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO guild_table_manners (guild_id, own_thread, tidy_boards, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET"
                " own_thread = excluded.own_thread, tidy_boards = excluded.tidy_boards,"
                " updated_at = excluded.updated_at",
                (m.guild_id, int(m.own_thread), int(m.tidy_boards),
                 time.time() if now is None else now),
            )

    async def history(self, game_id: int) -> list[tuple[int, int | None, str, float]]:
        """The action log of a game: (ply, seat, action, at)."""
        async with self._lock:
            rows = await self._fetchall(
                "SELECT ply, seat, action, at FROM actions WHERE game_id = ? ORDER BY ply",
                (game_id,))
        return [(r[0], r[1], r[2], r[3]) for r in rows]


def _write_seats(db: sqlite3.Connection, game_id: int, seats: Iterable[SeatRecord]) -> None:
    db.executemany(
        "INSERT INTO seats (game_id, seat, user_id, level, name, left_game, resigned,"
        " absences) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(game_id, s.seat, s.user_id, s.level, s.name, int(s.left), int(s.resigned),
          s.absences) for s in seats],
    )


def _complete(db: sqlite3.Connection, row: Sequence[Any]) -> GameRecord:
    """A games row with its seats and its action log (cut at the first hole, loudly)."""
    rec = GameRecord(
        id=row[0], kind=row[1], options=json.loads(row[2]), seed=row[3], status=row[4],
        guild_id=row[5], channel_id=row[6], host_id=row[7],
        snapshot=json.loads(row[8]) if row[8] else None, lobby_deadline=row[9],
        turn_deadline=row[10], turn_reminded=bool(row[11]), on_leave=row[12],
        end_reason=row[13], created_at=row[14], updated_at=row[15],
    )
    seats = db.execute(
        "SELECT seat, user_id, level, name, left_game, resigned, absences FROM seats"
        " WHERE game_id = ? ORDER BY seat", (rec.id,)).fetchall()
    rec.seats = [SeatRecord(seat=s[0], user_id=s[1], level=s[2], name=s[3],
                            left=bool(s[4]), resigned=bool(s[5]), absences=s[6])
                 for s in seats]
    actions = db.execute(
        "SELECT ply, action FROM actions WHERE game_id = ? ORDER BY ply", (rec.id,)).fetchall()
    for expected, (ply, action) in enumerate(actions):
        if ply != expected:
            log.error("game %d: action log has a hole at ply %d", rec.id, expected)
            break
        rec.actions.append(action)
    return rec


@dataclass(frozen=True)
class _Failed:
    error: BaseException


def _unwrap(outcome: Any) -> Any:
    if isinstance(outcome, _Failed):
        raise outcome.error
    return outcome


def _run_batch(
    db: sqlite3.Connection, works: list[Callable[[sqlite3.Connection], Any]]
) -> list[Any]:
    """In aiosqlite's thread: one transaction, each write in its own savepoint."""
    outcomes: list[Any] = []
    db.execute("BEGIN IMMEDIATE")
    try:
        for work in works:
            db.execute("SAVEPOINT write")
            try:
                outcomes.append(work(db))
            except Exception as exc:
                db.execute("ROLLBACK TO write")
                outcomes.append(_Failed(exc))
            db.execute("RELEASE write")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return outcomes
