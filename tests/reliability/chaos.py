"""Kill the bot at bad moments while people play, restart it, and count what survived.

A ``KillRun`` starts ``python bot.py`` against a recording fake Discord, seats people (and
computer players) at several tables, lets them play Kids and Dice games to the end, and
meanwhile SIGKILLs the bot at chosen moments:

- ``lobby``: lobbies open, people seated, nobody has pressed Start;
- ``board``: the bot is posting the board of a move it has just committed;
- ``prompt``: a player has just been shown where their card can go (mid-turn);
- ``hand``: the bot is sending a hand by DM after a draw;
- ``computer``: a computer player is thinking;
- ``random``: any moment at all.

For ``board`` and ``hand`` the request is, at random, dropped (it never reached Discord) or
delivered (Discord stored it, the bot died before hearing back). After each kill the bot
is started again on the same database and people carry on, with the buttons they have.

At the end ``KillReport`` says, from the database and from what the fake server received:
how many games finished correctly, moves confirmed to a person but lost, boards posted
twice or never, games whose stored state disagrees with their replayed log, and log lines
showing unhandled exceptions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import signal
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from manager import OPEN
from tests.waiting import until

from .harness import (
    RECOVERED,
    BotProcess,
    RecordingDiscord,
    board_count_problems,
    board_messages,
    known_bug,
    unhandled_records,
)
from .leaks import find_leaks
from .players import EXPECTED_FAILURES, Ledger, Player, newest_with, play_until_over
from .truth import GameTruth, expected_boards, read_games

log = logging.getLogger(__name__)

KINDS = ("board", "prompt", "computer", "hand", "random")


@dataclass(frozen=True)
class TableSpec:
    """A table: which game, how many people (the first is the host), which computers."""

    kind: str
    people: int = 2
    computers: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()


@dataclass
class KillReport:
    kills: int = 0
    kill_kinds: Counter[str] = field(default_factory=Counter)
    games_started: int = 0
    games_finished_ok: int = 0
    games_unfinished: int = 0
    moves_confirmed: int = 0
    moves_lost: list[tuple[int, int, str]] = field(default_factory=list)
    committed_lost: list[str] = field(default_factory=list)
    boards_missing: int = 0
    boards_duplicated: int = 0
    doubles: list[str] = field(default_factory=list)  # what the doubled boards said
    invariant_problems: list[str] = field(default_factory=list)
    unhandled: list[str] = field(default_factory=list)
    known_bugs: Counter[str] = field(default_factory=Counter)
    leaks: list[str] = field(default_factory=list)
    old_button_clicks: int = 0
    fallbacks: int = 0
    restart_s: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        restart = (sum(self.restart_s) / len(self.restart_s)) if self.restart_s else 0.0
        return (f"{self.kills} kills {dict(self.kill_kinds)}; {self.games_finished_ok}/"
                f"{self.games_started} games finished correctly ({self.games_unfinished} "
                f"unfinished); {self.moves_confirmed} confirmed moves, "
                f"{len(self.moves_lost)} lost, {len(self.committed_lost)} committed lost; "
                f"boards missing {self.boards_missing}, duplicated {self.boards_duplicated}; "
                f"{len(self.invariant_problems)} invariant problems; "
                f"{len(self.unhandled)} unhandled, known bugs {dict(self.known_bugs)}; "
                f"{len(self.leaks)} leaks; {self.old_button_clicks} clicks on old "
                f"buttons, {self.fallbacks} fallbacks; restart {restart:.2f} s; "
                f"{self.seconds:.0f} s"
                + "".join(f"\n  doubled: {d}" for d in self.doubles))


class KillRun:
    """One bounded run; ``await KillRun(...).run()`` returns a ``KillReport``."""

    def __init__(self, workdir: Path, tables: list[TableSpec], *, kills: int, seed: int = 7,
                 lobby_kills: bool = True, time_limit: float = 240.0,
                 kinds: tuple[str, ...] = KINDS) -> None:
        self.workdir = workdir
        self.specs = tables
        self.kills_wanted = kills
        self.rng = random.Random(seed)
        self.lobby_kills = lobby_kills
        self.time_limit = time_limit
        self.kinds = kinds
        self.db = workdir / "reliability.db"
        self.ledger = Ledger()
        self.report = KillReport()
        self.up = asyncio.Event()
        self.down = asyncio.Event()  # set from a kill until the restart (players give up)
        self.lobby_gate = asyncio.Event()
        self.lobbies_ready: set[int] = set()
        self.deadline = 0.0
        self.players: dict[int, Player] = {}
        self.game_ids: list[int] = []
        self.committed_at_kill: list[dict[int, tuple[str, ...]]] = []
        self.fake: RecordingDiscord
        self.bot: BotProcess

    # ------------------------------------------------------------------ the run
    async def run(self) -> KillReport:
        started = time.monotonic()
        self.deadline = started + self.time_limit
        async with RecordingDiscord(token="reliability-token-" + os.urandom(6).hex()) as fake:
            self.fake = fake
            names = [f"t{i}" for i in range(len(self.specs))]
            guild = fake.add_guild("Reliability", channels=tuple(names))
            seats = []
            for i, spec in enumerate(self.specs):
                people = [fake.add_person(f"P{i}{chr(65 + j)}", guild)
                          for j in range(spec.people)]
                for person in people:
                    self.players[person.id] = Player(person, self.ledger)
                seats.append(people)
            self.bot = BotProcess(fake, self.db, self.workdir / "bot.log", guild_id=guild.id)
            try:
                await self.bot.start()
                self.up.set()
                tables = [asyncio.create_task(self.table(spec, guild.channel_ids[i], seats[i]))
                          for i, spec in enumerate(self.specs)]
                chaos = asyncio.create_task(self.chaos(tables))
                await asyncio.wait_for(asyncio.gather(*tables),
                                       max(1.0, self.deadline - time.monotonic()) + 30)
                chaos.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await chaos
            finally:
                await self.boards_posted()
                await self.bot.stop()
            self.conclude()
        self.report.seconds = time.monotonic() - started
        return self.report

    # ------------------------------------------------------------------ one table
    async def table(self, spec: TableSpec, channel: int, people: list[Any]) -> None:
        rounds = 0
        while time.monotonic() < self.deadline:
            gid = await self.lobby(spec, channel, people, rounds)
            if gid is None:
                return
            self.game_ids.append(gid)
            await self.play(gid)
            rounds += 1
            if self.report.kills >= self.kills_wanted:
                return

    async def truth(self) -> dict[int, GameTruth]:
        return await asyncio.to_thread(read_games, self.db)

    def active_in(self, games: dict[int, GameTruth], channel: int) -> GameTruth | None:
        for g in games.values():
            if g.channel_id == channel and g.status in OPEN:
                return g
        return None

    async def lobby(self, spec: TableSpec, channel: int, people: list[Any], rounds: int
                    ) -> int | None:
        """Open a lobby, seat everyone, start. Retries each step until the database shows
        it happened (a step may be lost with a killed bot). Returns the game id."""
        host = people[0]
        options = dict(spec.options)
        while time.monotonic() < self.deadline:
            await self.up.wait()
            games = await self.truth()
            game = self.active_in(games, channel)
            try:
                if game is None:
                    rematch = newest_with(self.fake.visible_messages(channel), "seq:rematch:")
                    if rematch is not None and rounds and not options:
                        # the final board's Rematch: maybe sent by a bot since killed
                        custom_id = rematch.button(custom_id_contains="seq:rematch:")
                        await self.players[host.id]._click(rematch, custom_id["custom_id"])
                    else:
                        await host.slash("sequence new", channel=channel, timeout=4,
                                         game=spec.kind, **options)
                    await asyncio.sleep(0.05)
                    continue
                if game.status == "playing":
                    return game.id
                lobby = newest_with(self.fake.visible_messages(channel),
                                    f"seq:lobby:{game.id}:join")
                seated = {s.user_id for s in game.seats if s.user_id is not None}
                computers = [s.level for s in game.seats if s.level is not None]
                missing = [p for p in people if p.id not in seated]
                if missing:
                    if lobby is not None:
                        await missing[0].click(lobby, f"seq:lobby:{game.id}:join", timeout=4)
                    else:
                        await missing[0].slash("sequence join", channel=channel, timeout=4)
                    await asyncio.sleep(0.05)
                    continue
                if len(computers) < len(spec.computers):
                    if lobby is None:
                        # the lobby message was lost with a killed bot, and there is no
                        # command to add a computer: start over
                        self.ledger.fallbacks += 1
                        await host.slash("sequence end", channel=channel, timeout=4)
                        continue
                    level = spec.computers[len(computers)]
                    await host.click(lobby, f"seq:lobby:{game.id}:cpu-{level}", timeout=4)
                    await asyncio.sleep(0.05)
                    continue
                if self.lobby_kills and not self.lobby_gate.is_set():
                    self.lobbies_ready.add(channel)
                    await self.lobby_gate.wait()
                    continue
                if lobby is not None:
                    await host.click(lobby, f"seq:lobby:{game.id}:start", timeout=4)
                else:
                    await host.slash("sequence start", channel=channel, timeout=4)
                await asyncio.sleep(0.05)
            except EXPECTED_FAILURES:
                await asyncio.sleep(0.1)
        return None

    async def play(self, gid: int) -> None:
        await play_until_over(self.db, gid, self.players, up=self.up, down=self.down,
                              time_limit=max(0.0, self.deadline - time.monotonic()))

    # ------------------------------------------------------------------ killing
    async def chaos(self, tables: list[asyncio.Task[None]]) -> None:
        kinds = list(self.kinds)
        i = 0
        if self.lobby_kills:
            end = time.monotonic() + 60
            while len(self.lobbies_ready) < len(self.specs) and time.monotonic() < end:
                await asyncio.sleep(0.02)
            await self.kill_and_restart("lobby")
            self.lobby_gate.set()
        while self.report.kills < self.kills_wanted and time.monotonic() < self.deadline:
            if all(t.done() for t in tables):
                return
            await asyncio.sleep(self.rng.uniform(0.3, 1.2))
            kind = kinds[i % len(kinds)]
            i += 1
            fired = await self.arm(kind)
            await self.kill_and_restart(kind if fired else "random")

    async def arm(self, kind: str) -> bool:
        """Wait (bounded) for the moment ``kind``; the hook kills the bot. True if it fired."""
        if kind == "random":
            await asyncio.sleep(self.rng.uniform(0.0, 1.0))
            return True
        if kind == "computer":
            end = time.monotonic() + 5
            while time.monotonic() < end:
                for game in (await self.truth()).values():
                    if game.status == "playing" and not game.is_human(
                            game.replayed().current_seat):
                        return True
                await asyncio.sleep(0.02)
            return False
        fired: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def hook(method: str, path: str, body: Any) -> str | None:
            if fired.done() or not _matches(kind, method, path, body, self.fake):
                return None
            pid = self.bot.pid
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            fired.set_result(None)
            if kind == "prompt":
                return None  # the player got the prompt; the bot did not live to see it
            return "drop" if self.rng.random() < 0.5 else None

        self.fake.before_answer.append(hook)
        try:
            await asyncio.wait_for(fired, 5)
            return True
        except TimeoutError:
            return False
        finally:
            self.fake.before_answer.remove(hook)

    async def kill_and_restart(self, kind: str) -> None:
        self.up.clear()
        self.down.set()
        # Every message there now came from the process being killed (a moment's hook has
        # SIGKILLed it already). Taken before waiting for it to die: a player clicking the
        # prompt that came with the kill meanwhile is clicking an old button, and on a
        # loaded machine the wait is when that click comes.
        old = set(self.fake.messages)
        for player in self.players.values():
            player.old_messages = old
        await self.bot.kill()
        self.report.kills += 1
        self.report.kill_kinds[kind] += 1
        committed = await self.truth()
        self.committed_at_kill.append({g.id: g.actions for g in committed.values()})
        await asyncio.sleep(self.rng.uniform(0.0, 0.3))  # clicks now go nowhere
        started = time.monotonic()
        await self.bot.start()
        self.report.restart_s.append(time.monotonic() - started)
        self.down.clear()
        self.up.set()

    # ------------------------------------------------------------------ the verdict
    async def boards_posted(self, timeout: float = 10.0) -> None:
        """Wait until every stored move's board is in its channel (the commit comes first,
        the board after it), so the stop cuts none; bounded: a board that never comes is
        what ``conclude`` counts as missing."""
        def posted() -> bool:
            by_channel: dict[int, int] = {}
            for game in read_games(self.db).values():
                by_channel[game.channel_id] = (by_channel.get(game.channel_id, 0)
                                               + expected_boards(game))
            return all(board_count_problems(self.fake, c, n)[0] == 0
                       for c, n in by_channel.items())

        with contextlib.suppress(AssertionError):
            await until(posted, "the boards of the stored moves", timeout)

    def conclude(self) -> None:
        r = self.report
        games = read_games(self.db)
        r.moves_confirmed = len(self.ledger.confirmed)
        r.moves_lost = self.ledger.lost(games)
        r.old_button_clicks = self.ledger.old_button_clicks
        r.fallbacks = self.ledger.fallbacks
        for snapshot in self.committed_at_kill:
            for gid, actions in snapshot.items():
                now = games[gid].actions if gid in games else ()
                if now[:len(actions)] != actions:
                    r.committed_lost.append(f"game {gid}: committed log changed after a kill")
        by_channel: dict[int, list[GameTruth]] = {}
        for game in games.values():
            r.invariant_problems += game.invariant_problems()
            if game.seed is None:
                continue
            by_channel.setdefault(game.channel_id, []).append(game)
            r.games_started += 1
            if game.status != "finished":
                r.games_unfinished += 1
        lost_games = {gid for gid, _, _ in r.moves_lost}
        for channel, played in by_channel.items():
            missing, doubled, on_recovery = board_count_problems(
                self.fake, channel, sum(expected_boards(g) for g in played))
            r.boards_missing += missing
            # a recovery board showing what a move's board shows too was the race that
            # test_recovery_racing_a_move_... showed; it is fixed, so it counts as a double
            r.boards_duplicated += doubled + on_recovery
            if doubled or on_recovery:
                posted = board_messages(self.fake, channel)
                alts = [next(f.description for f in m.files if f.filename == "board.png")
                        for m in posted]
                again = [m.content.startswith(RECOVERED) for m in posted]
                r.doubles += [f"{posted[i - 1].content!r} then {posted[i].content!r}"
                              for i in range(1, len(posted)) if alts[i] == alts[i - 1]
                              and (again[i] or again[i - 1]
                                   or posted[i].content == posted[i - 1].content)]
            for g in played:
                if (g.status == "finished" and not g.invariant_problems()
                        and g.id not in lost_games):
                    r.games_finished_ok += 1
        log_text = self.bot.log()
        for record in unhandled_records(log_text):
            bug = known_bug(record)
            if bug:
                r.known_bugs[bug.split("::")[1]] += 1
            else:
                r.unhandled.append(record)  # (its traceback too: a failure shows why)
        r.leaks = find_leaks(self.fake, self.db, log_text, self.fake.token)
        if self.fake.unhandled:
            r.unhandled += [f"fake Discord: no route for {x}" for x in self.fake.unhandled]


def _matches(kind: str, method: str, path: str, body: Any, fake: RecordingDiscord) -> bool:
    payload = body if isinstance(body, dict) else {}
    if kind == "board":
        return (method == "POST" and path.startswith("/channels/")
                and _has_file(payload, "board.png"))
    if kind == "hand":
        return (method == "POST" and path.startswith("/channels/")
                and _has_file(payload, "hand.png"))
    if kind == "prompt":
        # a card's spaces come in the interaction response; a roll's in the deferred reply,
        # filled in by PATCH .../messages/@original
        if method not in ("POST", "PATCH") or not ("/callback" in path
                                                   or path.startswith("/webhooks/")):
            return False
        data = payload.get("data", payload) if "/callback" in path else payload
        return any(c.get("custom_id", "").startswith(("seq:play:", "seq:spaces:"))
                   for row in (data or {}).get("components") or []
                   for c in row.get("components") or [])
    return False


def _has_file(payload: dict[str, Any], name: str) -> bool:
    return any(a.get("filename") == name for a in payload.get("attachments") or [])


# The tables of the long kill run (``make reliability``, tools/reliability.py).
LONG_RUN_TABLES = [
    TableSpec("kids"),
    TableSpec("kids", people=1, computers=("easy",)),
    TableSpec("kids", people=2, computers=("easy", "medium"), options=(("teams", True),)),
    TableSpec("dice"),
    TableSpec("dice", people=1, computers=("easy",)),
    TableSpec("dice", people=2, computers=("easy", "easy"), options=(("teams", True),)),
]
