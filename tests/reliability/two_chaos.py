"""Two bot processes (shards 0 and 1 of 2) on one PostgreSQL, SIGKILLed in turn while people
play (issue 17), and what survived, counted from the outside.

A ``TwoKillRun`` starts a throwaway PostgreSQL (``tools/pg_server.py``), a recording fake
Discord with two shards and a server on each, and one ``python bot.py`` per shard. Tables
in both servers play Kids and Dice games to the end at once: people only, and with computer
players; one table has a one-minute turn timer and, once a game, its player stops clicking
so that the timer plays for them. People play from their DMs (which Discord sends to shard
0 whatever the server, so shard 1's games are played at the other process too) and from the
buttons on the board (which go to the server's own shard).

Meanwhile the processes are SIGKILLed alternately, at varied moments:

- ``computer``: a computer player is to move after a person's move that the victim made
  (the victim is the one that drives it, so the other must take it over);
- ``timer``: a few seconds before the idle player's turn timer runs out, so the timer
  falls due while the victim is down;
- ``random``: any moment.

A killed process stays down until every game it left waiting (a computer turn, a timer
due) has a new board, or at most ``down_cap`` seconds, and is then started again. Nothing
is read from the bot's memory or its log messages (beyond counting error lines): the
verdict comes from the boards and DMs the fake received and the games' action logs as
PostgreSQL holds them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from manager import OPEN
from tests.e2e.processes import shard_process
from tests.fakediscord import FakeGuild, FakeMessage, Person
from tests.waiting import until
from tools.pg_server import PostgresServer, find_bindir

from .chaos import TableSpec
from .harness import (
    RECOVERED,
    BotProcess,
    RecordingDiscord,
    board_messages,
    error_lines,
    known_bug,
    unhandled_records,
)
from .leaks import leaks_in
from .players import EXPECTED_FAILURES, Ledger, Player, _unless_down, newest_with
from .truth import GameTruth, SeatTruth, expected_boards

log = logging.getLogger(__name__)

KINDS = ("computer", "timer", "random")
TIMER_MINUTES = 1  # the shortest turn timer ``/sequence new`` takes (minutes)


@dataclass(frozen=True)
class TwoTable:
    """A table in the server of ``shard``; ``idle``: its people let the timer play once a
    game (needs a ``turn_timer`` option)."""

    spec: TableSpec
    shard: int
    idle: bool = False


#: Four tables, two per server: people only and with computers, Kids and Dice, and one
#: with a one-minute turn timer whose player stops clicking once a game.
TABLES = (
    TwoTable(TableSpec("kids"), 0),
    TwoTable(TableSpec("dice", people=1, computers=("easy",)), 0),
    TwoTable(TableSpec("kids", computers=("easy",),
                       options=(("turn_timer", TIMER_MINUTES),)), 1, idle=True),
    TwoTable(TableSpec("dice"), 1),
)


@dataclass
class TwoKillReport:
    kills: int = 0
    kill_kinds: Counter[str] = field(default_factory=Counter)
    kills_of: Counter[int] = field(default_factory=Counter)  # by shard
    games_started: int = 0
    games_finished: int = 0
    moves_confirmed: int = 0
    moves_lost: list[str] = field(default_factory=list)  # told "Played" but not stored
    moves_unshown: list[str] = field(default_factory=list)  # stored, no board showed it
    committed_lost: list[str] = field(default_factory=list)  # a stored log that shrank
    final_boards_missing: list[int] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    reshown: int = 0  # recovery boards of a moment already shown (by design, not doubles)
    leaks: list[str] = field(default_factory=list)
    unhandled: list[str] = field(default_factory=list)
    known_bugs: Counter[str] = field(default_factory=Counter)
    invariant_problems: list[str] = field(default_factory=list)
    takeovers: list[tuple[str, float]] = field(default_factory=list)  # (what, seconds)
    not_taken_over: list[str] = field(default_factory=list)  # waited for the restart
    timers_acted: int = 0
    dm_moves: int = 0
    board_moves: int = 0
    restart_s: list[float] = field(default_factory=list)
    #: (seconds since the start, what happened): kills and restarts, to place a finding
    marks: list[tuple[float, str]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def lost(self) -> int:
        return len(self.moves_lost) + len(self.moves_unshown) + len(self.committed_lost)

    @property
    def longest_takeover(self) -> float:
        return max((s for _, s in self.takeovers), default=0.0)

    def summary(self) -> str:
        longest = max(self.takeovers, key=lambda t: t[1], default=("none", 0.0))
        restart = sum(self.restart_s) / len(self.restart_s) if self.restart_s else 0.0
        return (f"{self.kills} kills {dict(self.kill_kinds)} (shard 0: {self.kills_of[0]}, "
                f"shard 1: {self.kills_of[1]}); {self.games_finished}/{self.games_started} "
                f"games finished; {self.moves_confirmed} confirmed moves ({self.dm_moves} "
                f"from DMs, {self.board_moves} from boards), {len(self.moves_lost)} lost, "
                f"{len(self.moves_unshown)} never shown, {len(self.committed_lost)} "
                f"committed lost; final boards missing {len(self.final_boards_missing)}; "
                f"duplicates {len(self.duplicates)} (recovery re-shows {self.reshown}); "
                f"{self.timers_acted} timers acted; takeovers {len(self.takeovers)}, longest "
                f"{longest[1]:.1f} s ({longest[0]}), {len(self.not_taken_over)} waited for "
                f"the restart; {len(self.unhandled)} unhandled, known bugs "
                f"{dict(self.known_bugs)}; {len(self.invariant_problems)} invariant problems; "
                f"{len(self.leaks)} leaks; restart {restart:.1f} s; {self.seconds:.0f} s"
                + "".join(f"\n  {what}" for what in [*self.moves_lost, *self.moves_unshown,
                                                    *self.committed_lost, *self.duplicates,
                                                    *self.unhandled[:5], *self.leaks[:3],
                                                    *self.not_taken_over])
                + ("\n  kills and restarts: " + ", ".join(f"{what} at {at:.1f} s"
                                                    for at, what in self.marks)
                   if self.duplicates or self.lost else ""))


async def read_pg_games(pool: asyncpg.Pool) -> dict[int, GameTruth]:
    """Every game PostgreSQL holds, by id, as ``truth.read_games`` reads an SQLite file
    (one snapshot: a game's row, seats and log agree with each other)."""
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read",
                                                        readonly=True):
        return await _read_games(conn)


async def _read_games(conn: Any) -> dict[int, GameTruth]:
    rows = await conn.fetch("SELECT id, kind, status, channel_id, host_id, seed, options, "
                            "snapshot FROM games ORDER BY id")
    seats: dict[int, list[SeatTruth]] = {}
    for r in await conn.fetch("SELECT game_id, seat, user_id, level, resigned FROM seats "
                              "ORDER BY game_id, seat"):
        seats.setdefault(r[0], []).append(SeatTruth(r[1], r[2], r[3], bool(r[4])))
    actions: dict[int, list[str]] = {}
    for r in await conn.fetch("SELECT game_id, action FROM actions ORDER BY game_id, ply"):
        actions.setdefault(r[0], []).append(r[1])
    results = {r[0]: r[1] for r in await conn.fetch(
        "SELECT game_id, COUNT(*) FROM results GROUP BY game_id")}
    return {r[0]: GameTruth(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6] or "{}"),
                            tuple(seats.get(r[0], [])), tuple(actions.get(r[0], [])),
                            json.loads(r[7]) if r[7] else None, results.get(r[0], 0))
            for r in rows}


def game_of_board(message: FakeMessage) -> int | None:
    """The game a board's buttons belong to (None: a board without game buttons)."""
    for custom_id in message.custom_ids():
        parts = custom_id.split(":")
        if parts[1:3] == ["rematch", "again"] and len(parts) > 3 and parts[3].isdigit():
            return int(parts[3])
        if parts[1] in ("hand", "roll", "child") and len(parts) > 2 and parts[2].isdigit():
            return int(parts[2])
    return None


def alt_of(message: FakeMessage) -> str:
    return next(f.description or "" for f in message.files if f.filename == "board.png")


Moment = tuple[str, str, tuple[str, ...]]


def moment_of(message: FakeMessage) -> Moment:
    """What a board shows, as far as its channel tells: its words, its picture (the alt text)
    and its buttons. Two moments of a Dice game can read and look alike (a chip replaced
    back and forth with the same roll, or the same roll passed twice on an unchanged board),
    but its Roll button carries the moment's ply (``seq:roll:<game>:<ply>``), so they are
    still two; a Kids board's picture counts the deck."""
    return message.content, alt_of(message), tuple(message.custom_ids())


def names_no_moment(message: FakeMessage, kind: str | None) -> bool:
    """A Dice board with a computer to move: no Roll button (nor Rematch) tells its moment,
    so two moments of a replace war against a computer can be the same board."""
    return kind == "dice" and not any(c.startswith(("seq:roll:", "seq:rematch:"))
                                      for c in message.custom_ids())


@dataclass
class ChannelBoards:
    """What one channel's boards showed: ``duplicates`` (a moment posted more than once,
    or more move boards than the game has moments), ``shown`` (game -> the moments its
    boards showed), ``reshown`` (recovery boards of the moment the board before showed)."""

    duplicates: list[str] = field(default_factory=list)
    shown: dict[int, int] = field(default_factory=dict)
    reshown: int = 0


def read_boards(posted: list[FakeMessage], games: dict[int, GameTruth], t0: float = 0.0
                ) -> ChannelBoards:
    """One channel's boards (oldest first) against the games as stored.

    Two boards of one game are one moment posted twice when they read, look and click
    alike (``moment_of``); a board that names no moment (``names_no_moment``) can only
    double the board just before it. A board shown again after a restart has its own text
    (``RECOVERED``): it stands for a moment no other board showed, or is a re-show."""
    out = ChannelBoards()
    first: dict[tuple[int, Moment], FakeMessage] = {}  # a moment's first board
    copies: dict[int, list[FakeMessage]] = {}  # first board's id -> the boards of it
    previous: dict[int, tuple[Moment, FakeMessage]] = {}  # game -> its newest board
    boards: Counter[int] = Counter()  # game -> its boards that were not re-shows
    doubled: Counter[int] = Counter()
    alts: dict[int, set[str]] = {}
    again: dict[int, set[str]] = {}
    # a board without game buttons (a computer to move) is of the game before it, or of
    # the channel's next game if that one's final board came before (a computer starts)
    channel = posted[0].channel_id if posted else None
    played = sorted(g.id for g in games.values()
                    if g.seed is not None and g.channel_id == channel)
    current: int | None = None
    over: set[int] = set()  # games whose final board came
    for m in posted:
        named = game_of_board(m)
        if named is not None:
            current = named
        elif current is None or current in over:
            current = next((g for g in played if current is None or g > current), None)
        if current is None:
            continue
        if any(c.startswith("seq:rematch:again:") for c in m.custom_ids()):
            over.add(current)
        if m.content.startswith(RECOVERED):
            again.setdefault(current, set()).add(alt_of(m))
            continue
        moment = moment_of(m)
        game = games.get(current)
        if names_no_moment(m, game.kind if game else None):
            before = previous.get(current)
            original = (first.get((current, moment), before[1])
                        if before is not None and before[0] == moment else None)
        else:
            original = first.get((current, moment))
        if original is None:
            first[(current, moment)] = m
            copies[m.id] = [m]
        else:
            copies[original.id].append(m)
            doubled[current] += 1
        previous[current] = (moment, m)
        boards[current] += 1
        alts.setdefault(current, set()).add(alt_of(m))
    out.duplicates += [
        f"a board posted {len(ms)} times ("
        + ", ".join(f"message {m.id} at {m.at - t0:.1f} s" for m in ms)
        + f"): {ms[0].content[:90]!r}" for ms in copies.values() if len(ms) > 1]
    for gid, count in boards.items():
        moments = count - doubled[gid]
        game = games.get(gid)
        if game is not None and game.seed is not None and moments > expected_boards(game):
            out.duplicates.append(f"game {gid}: {moments} boards of different moments, "
                                  f"{expected_boards(game)} moments stored")
        out.shown[gid] = moments + len(again.get(gid, set()) - alts.get(gid, set()))
    alt_seq = [alt_of(m) for m in posted]
    out.reshown = sum(1 for i in range(1, len(alt_seq)) if alt_seq[i] == alt_seq[i - 1])
    return out


@dataclass
class Waiting:
    """A game a killed process left waiting: a new board in its channel ends the wait."""

    what: str
    channel: int
    boards: int  # boards in the channel when the wait began
    since: float  # when the wait began (the kill, or the timer's deadline if later)


class TwoKillRun:
    """One bounded run; ``await TwoKillRun(...).run()`` returns a ``TwoKillReport``."""

    def __init__(self, workdir: Path, tables: tuple[TwoTable, ...] = TABLES, *, kills: int,
                 games_per_table: int | None = 1, seed: int = 17, time_limit: float = 300.0,
                 computer_delay: float = 0.5, down_cap: float = 40.0) -> None:
        self.workdir = workdir
        self.tables = tables
        self.kills_wanted = kills
        self.games_per_table = games_per_table  # None: until the kills are done
        self.rng = random.Random(seed)
        self.time_limit = time_limit
        self.computer_delay = computer_delay
        self.down_cap = down_cap
        self.report = TwoKillReport()
        self.deadline = 0.0
        self.up = {0: asyncio.Event(), 1: asyncio.Event()}
        self.down = {0: asyncio.Event(), 1: asyncio.Event()}
        self.players: dict[int, Player] = {}
        self.game_ids: list[int] = []
        #: the last move a person made in each game: (the shard whose process made it,
        #: the length of the action log after it)
        self.made_by: dict[int, tuple[int, int]] = {}
        #: an idle player waiting for the timer: (game id, channel, estimated deadline)
        self.idling: tuple[int, int, float] | None = None
        self.committed_at_kill: list[dict[int, tuple[str, ...]]] = []
        self.games: dict[int, GameTruth] = {}  # as stored at the end
        self.fake: RecordingDiscord
        self.procs: dict[int, BotProcess] = {}
        self.pool: asyncpg.Pool
        self.t0 = time.perf_counter()  # the fake stamps messages on this clock

    # ------------------------------------------------------------------ the run
    async def run(self) -> TwoKillReport:
        bindir = find_bindir()
        if bindir is None:
            raise RuntimeError("PostgreSQL is not installed (no initdb/pg_ctl found)")
        started = time.monotonic()
        self.t0 = time.perf_counter()
        server = await asyncio.to_thread(PostgresServer(bindir, durable=False).start)
        try:
            url = server.url()
            self.pool = await asyncpg.create_pool(url, min_size=1, max_size=4)
            try:
                await self._run(url)
            finally:
                await self.pool.close()
        finally:
            await asyncio.to_thread(server.stop)
        self.report.seconds = time.monotonic() - started
        return self.report

    async def _run(self, url: str) -> None:
        self.deadline = time.monotonic() + self.time_limit
        token = "reliability-token-" + os.urandom(6).hex()
        fake = RecordingDiscord(token=token, shards=2)
        async with fake:
            self.fake = fake
            guilds = {s: fake.add_guild(f"Shard{s}", shard=s, channels=tuple(
                f"t{i}" for i, t in enumerate(self.tables) if t.shard == s)) for s in (0, 1)}
            seats: list[tuple[int, list[Person]]] = []
            per_guild: Counter[int] = Counter()
            for i, table in enumerate(self.tables):
                guild: FakeGuild = guilds[table.shard]
                channel = guild.channel_ids[per_guild[table.shard]]
                per_guild[table.shard] += 1
                people = [fake.add_person(f"P{i}{chr(65 + j)}", guild)
                          for j in range(table.spec.people)]
                for person in people:
                    # a ledger each: which way a person's own move went is theirs to tell
                    self.players[person.id] = Player(person, Ledger())
                seats.append((channel, people))
            for s in (0, 1):
                self.procs[s] = shard_process(fake, self.workdir, url, s)
                self.procs[s].computer_delay = self.computer_delay
            try:
                await asyncio.gather(*(p.launch() for p in self.procs.values()))
                await fake.wait_until_connected(60)
                await fake.wait_for(lambda: fake.commands.get(None), 30, "the command sync")
                for s in (0, 1):
                    self.up[s].set()
                playing = [asyncio.create_task(self.table(t, *seats[i]))
                           for i, t in enumerate(self.tables)]
                chaos = asyncio.create_task(self.chaos(playing))
                await asyncio.wait_for(asyncio.gather(*playing),
                                       max(1.0, self.deadline - time.monotonic()) + 60)
                await asyncio.wait_for(chaos, self.down_cap + 90)
                await self.boards_posted()
            finally:
                await asyncio.gather(*(p.stop() for p in self.procs.values()))
            await self.conclude()

    # ------------------------------------------------------------------ one table
    async def truth(self) -> dict[int, GameTruth]:
        return await read_pg_games(self.pool)

    async def table(self, table: TwoTable, channel: int, people: list[Person]) -> None:
        rounds = 0
        while time.monotonic() < self.deadline:
            gid = await self.lobby(table, channel, people)
            if gid is None:
                return
            self.game_ids.append(gid)
            await self.play(gid, table, channel)
            rounds += 1
            if self.games_per_table is not None and rounds >= self.games_per_table:
                return
            if self.games_per_table is None and self.report.kills >= self.kills_wanted:
                return

    async def lobby(self, table: TwoTable, channel: int, people: list[Person]) -> int | None:
        """Open a lobby, seat everyone, start; each step retried until the database shows
        it (a step may go to a killed process). Returns the game id."""
        spec, shard = table.spec, table.shard
        host = people[0]
        while time.monotonic() < self.deadline:
            await self.up[shard].wait()
            game = next((g for g in (await self.truth()).values()
                         if g.channel_id == channel and g.status in OPEN), None)
            try:
                if game is None:
                    await host.slash("sequence new", channel=channel, timeout=4,
                                     game=spec.kind, **dict(spec.options))
                elif game.status == "playing":
                    return game.id
                else:
                    lobby = newest_with(self.fake.visible_messages(channel),
                                        f"seq:lobby:{game.id}:join")
                    seated = {s.user_id for s in game.seats if s.user_id is not None}
                    computers = [s.level for s in game.seats if s.level is not None]
                    missing = [p for p in people if p.id not in seated]
                    if missing:
                        if lobby is not None:
                            await missing[0].click(lobby, f"seq:lobby:{game.id}:join",
                                                   timeout=4)
                        else:
                            await missing[0].slash("sequence join", channel=channel,
                                                   timeout=4)
                    elif len(computers) < len(spec.computers):
                        if lobby is None:  # no command seats a computer: start over
                            await host.slash("sequence end", channel=channel, timeout=4)
                        else:
                            await host.click(lobby, f"seq:lobby:{game.id}:cpu-"
                                             f"{spec.computers[len(computers)]}", timeout=4)
                    elif lobby is not None:
                        await host.click(lobby, f"seq:lobby:{game.id}:start", timeout=4)
                    else:
                        await host.slash("sequence start", channel=channel, timeout=4)
            except (*EXPECTED_FAILURES, RuntimeError):
                pass
            await asyncio.sleep(0.1)
        return None

    async def play(self, gid: int, table: TwoTable, channel: int,
                   stuck_after: float = 120.0) -> None:
        """People take their turns until PostgreSQL says the game is over."""
        idled = not table.idle
        stuck_since, last_len = time.monotonic(), -1
        while time.monotonic() < self.deadline:
            game = (await self.truth()).get(gid)
            if game is None or game.status != "playing":
                return
            if len(game.actions) != last_len:
                last_len, stuck_since = len(game.actions), time.monotonic()
            elif time.monotonic() - stuck_since > stuck_after:
                log.warning("game %d made no progress for %.0f s", gid, stuck_after)
                return
            seat = game.replayed().current_seat
            if not game.is_human(seat):
                await asyncio.sleep(0.05)  # a computer player moves by itself
                continue
            if not idled and len(game.actions) >= 6:
                idled = True
                await self.let_the_timer_play(game, channel)
                continue
            player = self.players[game.user_of(seat)]  # type: ignore[index]
            # Kids: from the DM (to shard 0's process) or the board's "My hand" (to the
            # server's); Dice: the board's Roll (the server's)
            from_dm = (game.kind == "kids" and self.up[0].is_set()
                       and (not self.up[table.shard].is_set() or self.rng.random() < 0.6))
            player.dm_hand = from_dm
            fallbacks = player.ledger.fallbacks
            route = 0 if from_dm else table.shard
            if not self.up[route].is_set():
                await asyncio.sleep(0.2)  # nobody can answer this person's click now
                continue
            try:
                done = await _unless_down(player.take_turn(game), self.down[route])
            except (*EXPECTED_FAILURES, RuntimeError):
                done = False
            if done:
                by_dm = from_dm and player.ledger.fallbacks == fallbacks
                if not by_dm:
                    route = table.shard  # the DM hand did not do: "My hand" on the board
                ply = max((p for g, p, _ in player.ledger.confirmed if g == gid), default=-1)
                self.made_by[gid] = (route, ply + 1)
                if by_dm:
                    self.report.dm_moves += 1
                else:
                    self.report.board_moves += 1
            else:
                await asyncio.sleep(0.1)

    async def let_the_timer_play(self, game: GameTruth, channel: int) -> None:
        """The person to move stops clicking: the turn timer plays for them."""
        before = len(game.actions)
        # the deadline was set when the move before was committed, a little before now
        self.idling = (game.id, channel, time.monotonic() + TIMER_MINUTES * 60)
        end = time.monotonic() + TIMER_MINUTES * 60 + self.down_cap + 30
        try:
            while time.monotonic() < end:
                now = (await self.truth()).get(game.id)
                if now is None or now.status != "playing" or len(now.actions) > before:
                    self.report.timers_acted += 1
                    return
                await asyncio.sleep(0.2)
            log.warning("game %d: the turn timer never played", game.id)
        finally:
            self.idling = None

    # ------------------------------------------------------------------ killing
    async def chaos(self, tables: list[asyncio.Task[None]]) -> None:
        with contextlib.suppress(TimeoutError):
            await self.fake.wait_for(lambda: len(self.game_ids) >= len(self.tables), 60,
                                     "every table playing")
        await asyncio.sleep(self.rng.uniform(1.0, 4.0))
        i = 0
        while self.report.kills < self.kills_wanted and time.monotonic() < self.deadline:
            if all(t.done() for t in tables):
                return
            victim = i % 2
            kind = KINDS[i % len(KINDS)] if self.kills_wanted > 2 else ("computer", "timer")[i]
            i += 1
            waiting = await self.arm(kind, victim, tables)
            await self.kill(victim, kind if waiting is not None else "random", waiting or [])
            await asyncio.sleep(self.rng.uniform(1.0, 6.0))

    async def arm(self, kind: str, victim: int, tables: list[asyncio.Task[None]]
                  ) -> list[Waiting] | None:
        """Wait (bounded) for the moment ``kind``; what the kill will leave waiting, or None
        if the moment did not come."""
        if kind == "random":
            await asyncio.sleep(self.rng.uniform(0.0, 3.0))
            return await self.computer_waits(victim)
        if kind == "computer":
            end = time.monotonic() + 20
            while time.monotonic() < end and not all(t.done() for t in tables):
                waits = await self.computer_waits(victim)
                if waits:
                    return waits
                await asyncio.sleep(0.03)
            return None
        # timer: a few seconds before the idle player's deadline
        end = time.monotonic() + 150
        while self.idling is None and time.monotonic() < end:
            if all(t.done() for t in tables):
                return None
            await asyncio.sleep(0.2)
        if self.idling is None:
            return None
        gid, channel, due = self.idling
        await asyncio.sleep(max(0.0, due - 3.0 - time.monotonic()))
        if self.idling is None or self.idling[0] != gid:
            return None  # the timer acted early (its deadline was before our estimate)
        waits = await self.computer_waits(victim)
        return [*waits, Waiting(f"timer of game {gid}", channel,
                                len(board_messages(self.fake, channel)), due)]

    async def computer_waits(self, victim: int) -> list[Waiting]:
        """Games whose next step is a computer turn after a person's move ``victim`` made."""
        out = []
        now = time.monotonic()
        for game in (await self.truth()).values():
            if game.status != "playing" or game.seed is None:
                continue
            made = self.made_by.get(game.id)
            if made is None or made != (victim, len(game.actions)):
                continue
            if not game.is_human(game.replayed().current_seat):
                out.append(Waiting(f"computer turn of game {game.id} (ply {len(game.actions)})",
                                   game.channel_id,
                                   len(board_messages(self.fake, game.channel_id)), now))
        return out

    async def kill(self, victim: int, kind: str, waiting: list[Waiting]) -> None:
        process = self.procs[victim]
        self.up[victim].clear()
        self.down[victim].set()
        await process.kill()
        killed_at = time.monotonic()
        self.report.marks.append((time.perf_counter() - self.t0, f"kill {victim} ({kind})"))
        self.report.kills += 1
        self.report.kill_kinds[kind] += 1
        self.report.kills_of[victim] += 1
        self.committed_at_kill.append({g.id: g.actions for g in (await self.truth()).values()})
        pause = self.rng.uniform(2.0, 6.0)
        open_waits = list(waiting)
        while time.monotonic() < killed_at + self.down_cap:
            for w in list(open_waits):
                if len(board_messages(self.fake, w.channel)) > w.boards:
                    took = time.monotonic() - max(w.since, killed_at)
                    self.report.takeovers.append((w.what, took))
                    open_waits.remove(w)
            if not open_waits and time.monotonic() >= killed_at + pause:
                break
            await asyncio.sleep(0.05)
        self.report.not_taken_over += [f"{w.what}: nothing in {self.down_cap:.0f} s while "
                                       f"shard {victim}'s process was down" for w in open_waits]
        started = time.monotonic()
        await process.launch()
        await self.fake.wait_until_connected(60, shard=victim)
        self.report.restart_s.append(time.monotonic() - started)
        self.report.marks.append((time.perf_counter() - self.t0, f"restart {victim}"))
        self.down[victim].clear()
        self.up[victim].set()

    async def boards_posted(self, timeout: float = 45.0) -> None:
        """Wait until every finished game's final board and every stored move's board is
        in its channel. A final board may be owed by a process killed after the commit:
        its promise runs out after 30 s and a live process shows the table again. Bounded:
        what never comes is what ``conclude`` reports."""
        async def posted() -> bool:
            games = await self.truth()
            return not self.missing_final_boards(games) and not self.unshown_moves(games)

        with contextlib.suppress(AssertionError):
            await until(posted, "every stored move's board", timeout)

    def missing_final_boards(self, games: dict[int, GameTruth]) -> list[int]:
        shown = {game_of_board(m) for g in games.values()
                 for m in board_messages(self.fake, g.channel_id)
                 if any(c.startswith("seq:rematch:again:") for c in m.custom_ids())}
        return [g.id for g in games.values() if g.status == "finished" and g.id not in shown]

    def unshown_moves(self, games: dict[int, GameTruth]) -> list[str]:
        """Games with fewer moments on boards than stored (the start and each move)."""
        out = []
        for channel in {g.channel_id for g in games.values()}:
            boards = read_boards(board_messages(self.fake, channel), games, self.t0)
            for g in games.values():
                if g.channel_id != channel or g.seed is None:
                    continue
                shown = boards.shown.get(g.id, 0)
                if shown < expected_boards(g):
                    out.append(f"game {g.id}: {expected_boards(g)} moments stored, {shown} "
                               "shown on boards")
        return out

    # ------------------------------------------------------------------ the verdict
    async def conclude(self) -> None:
        r = self.report
        games = self.games = await self.truth()
        ledger = Ledger([c for p in self.players.values() for c in p.ledger.confirmed])
        r.moves_confirmed = len(ledger.confirmed)
        r.moves_lost = [f"game {g} ply {p}: {a} was confirmed to its player but is not stored"
                        for g, p, a in ledger.lost(games)]
        for snapshot in self.committed_at_kill:
            for gid, actions in snapshot.items():
                now = games[gid].actions if gid in games else ()
                if now[:len(actions)] != actions:
                    r.committed_lost.append(f"game {gid}: its stored log changed after a kill")
        r.final_boards_missing = self.missing_final_boards(games)
        for channel in {g.channel_id for g in games.values()}:
            boards = read_boards(board_messages(self.fake, channel), games, self.t0)
            r.duplicates += [f"channel {channel}: {d}" for d in boards.duplicates]
            r.reshown += boards.reshown
        r.moves_unshown = self.unshown_moves(games)
        for g in games.values():
            r.invariant_problems += g.invariant_problems()
            if g.seed is None:
                continue
            r.games_started += 1
            if g.status == "finished" and not g.invariant_problems():
                r.games_finished += 1
        logs = ""
        for shard, process in self.procs.items():
            text = process.log()
            logs += text
            lines = set(error_lines(text))
            for record in unhandled_records(text):
                bug = known_bug(record)
                if bug:
                    r.known_bugs[bug.split("::")[1]] += 1
                else:
                    lines.add(record.split("\n", 1)[0])
            r.unhandled += [f"shard {shard}: {line}" for line in sorted(lines)]
        r.leaks = leaks_in(self.fake, games, logs, self.fake.token)
        r.unhandled += [f"fake Discord: no route for {x}" for x in self.fake.unhandled]


def quick_run(workdir: Path) -> TwoKillRun:
    """The ``--quick`` size: 4 tables, one game each, 2 kills (one of each process)."""
    return TwoKillRun(workdir, kills=2, games_per_table=1, time_limit=300)


def full_run(workdir: Path) -> TwoKillRun:
    """``make reliability``: 4 tables playing game after game until 6 kills are done."""
    return TwoKillRun(workdir, kills=6, games_per_table=None, time_limit=480)


def row(report: TwoKillReport, takeover_within: float) -> tuple[Any, ...]:
    """The reliability table's row (``tools.reliability.HEADER``): the last column counts
    the takeovers that took ``takeover_within`` seconds or more, or never came before the
    killed process was back."""
    late = [s for _, s in report.takeovers if s >= takeover_within]
    return ("2 processes, PostgreSQL", report.kills,
            f"{report.games_finished}/{report.games_started}", report.lost,
            len(report.duplicates), len(report.leaks),
            len(report.unhandled) + len(report.invariant_problems),
            sum(report.known_bugs.values()), len(late) + len(report.not_taken_over))
