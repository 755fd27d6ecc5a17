"""The database outage under two ``python bot.py`` processes, as people live through it.

``Outage`` holds the parts (a PostgreSQL server of the test's own, the fake Discord with a
server on shard 1, two bot processes running shards 0 and 1, Ann and Bob and a computer
player at one table) and what a person does and sees: a turn played from the DMs (every
move whose "Played: ..." came on the hand message is noted: acknowledged), a click answered, the
database stopped (the moment it commits a move: ``stop_at_commit``) and started again.
Everything that happens is put on a ``Timeline`` in seconds since the database stopped,
which the test prints as its report.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from tests.e2e.people import (
    GAME_OVER,
    NOT_YOUR_TURN,
    OVER,
    boards,
    card_ids,
    choose_first,
    final_board,
    hand_message,
    shows_choices,
    tap_card,
    whose_turn,
)
from tests.e2e.scrape import healthz
from tests.fakediscord import FakeDiscord, FakeGuild, FakeMessage, Interaction, Person
from tests.pg_proxy import Cut, PostgresProxy
from tests.waiting import until
from tools.pg_server import PostgresServer, free_port

from .harness import BotProcess

logger = logging.getLogger(__name__)

PLAYED = "Played: "
#: A computer player's pause before it moves (the bot's default is 1.5 s), so that people
#: (and the tests) can follow.
COMPUTER_DELAY = 2.0


@dataclass
class Answer:
    """What one click during the outage was answered, and how long it took."""

    who: str
    what: str
    shard: int  # the process Discord sent the click to
    text: str
    ephemeral: bool
    took: float  # seconds from the click to the answer


@dataclass
class Timeline:
    """What happened, reported in seconds since the database stopped (before: negative)."""

    moments: list[tuple[float, str]] = field(default_factory=list)  # (perf_counter, what)
    stopped_at: float | None = None  # perf_counter
    stopped_wall: float | None = None  # time.time(), to read the bots' logs by
    started_at: float | None = None
    started_wall: float | None = None

    def since_stop(self) -> float:
        assert self.stopped_at is not None
        return time.perf_counter() - self.stopped_at

    def mark(self, what: str, at: float | None = None) -> None:
        self.moments.append((time.perf_counter() if at is None else at, what))

    def report(self, also: list[tuple[float, str]] | None = None) -> str:
        """The moments (and ``also``'s: (perf_counter, what)), in order."""
        zero = self.stopped_at or 0.0
        return "\n".join(f"{at - zero:+8.3f} s  {what}"
                         for at, what in sorted([*self.moments, *(also or [])]))


@dataclass
class Outage:
    fake: FakeDiscord
    guild: FakeGuild
    server: PostgresServer
    shards: tuple[BotProcess, BotProcess]
    ann: Person
    bob: Person
    health: tuple[str, ...] = ()  # each process's metrics and health address
    timeline: Timeline = field(default_factory=Timeline)
    acknowledged: list[tuple[int, str]] = field(default_factory=list)  # (ply, action)
    game_id: int = 0
    _stop_took: float = field(default=0.0, init=False)  # pg_ctl stop, s (stop_at_commit)

    @property
    def channel(self) -> int:
        return self.guild.channel_id

    # -- the database --------------------------------------------------------------------
    def stop_at_commit(self, proxy: PostgresProxy) -> Cut:
        """Arm the outage: the database is stopped (``pg_ctl stop -m fast``: every
        connection of both processes cut) the moment it has committed the next move, before
        the process that made the move hears so (``proxy``, between the processes and the
        database, holds the answer meanwhile). Nothing that follows the move can reach the
        database first, however slow the machine: the computer player to move after it
        waits for the move's answer before it even looks. (Stopped once the test had read
        the move's "Played", the computer's pause had sometimes run out before: a slow
        answer had used it up, its move was made before the outage, and the test waited
        for a board nobody owed.)"""
        def stop() -> None:  # (in the proxy's thread, the move's answer held)
            began = time.perf_counter()
            self.server.pause()
            self.timeline.stopped_at, self.timeline.stopped_wall = (time.perf_counter(),
                                                                    time.time())
            self._stop_took = self.timeline.stopped_at - began

        return proxy.stop_at_commit(b"INSERT INTO actions", stop)

    async def stopped(self, stop: Cut) -> None:
        """Once the armed stop happened (its move's answer then went on to the bot)."""
        await stop.happened(30)
        self.timeline.mark(f"database stopped as it committed the move, before the bot "
                           f"heard so (pg_ctl stop -m fast took {self._stop_took:.2f} s)",
                           self.timeline.stopped_at)

    async def start_database(self, after: float) -> None:
        """Start it again, same data and port, once it has been down ``after`` seconds."""
        await asyncio.sleep(max(0.0, after - self.timeline.since_stop()))  # the outage itself
        began = time.perf_counter()
        await asyncio.to_thread(self.server.resume)
        self.timeline.started_at, self.timeline.started_wall = time.perf_counter(), time.time()
        self.timeline.mark(f"database started again (pg_ctl start took "
                           f"{self.timeline.started_at - began:.2f} s)")

    async def stored_actions(self) -> dict[int, tuple[int | None, str, float]]:
        """The game's action log as stored: ply -> (seat, action, when)."""
        conn = await asyncpg.connect(self.server.url())
        try:
            rows = await conn.fetch(
                "SELECT ply, seat, action, at FROM actions WHERE game_id = $1", self.game_id)
        finally:
            await conn.close()
        return {int(r[0]): (r[1], str(r[2]), float(r[3])) for r in rows}

    def report(self) -> str:
        """The timeline with every board of the channel on it, as it came: which moves
        were shown before the database stopped, and which after it was back."""
        return self.timeline.report([
            (m.at, "board: " + " / ".join(m.content.splitlines()))
            for m in boards(self.fake, self.channel)])

    # -- what people see -----------------------------------------------------------------
    def public(self) -> list[tuple[int, str]]:
        """Every message in the server's channel that everyone sees, as it reads now."""
        return [(m.id, m.text) for m in self.fake.visible_messages(self.channel)]

    def person(self, user_id: int | None) -> Person:
        return self.ann if user_id == self.ann.id else self.bob

    async def next_board(self, seen: int, timeout: float = 30.0) -> FakeMessage:
        """The first board after the ``seen`` first ones that says whose turn it is (or the
        final board)."""
        def ready() -> FakeMessage | None:
            done = final_board(self.fake, self.channel)
            if done is not None:
                return done
            posted = boards(self.fake, self.channel)
            if len(posted) > seen and whose_turn(posted[-1]) is not None:
                return posted[-1]
            return None

        return await self.fake.wait_for(ready, timeout, "a board saying whose turn it is")

    async def hand(self, person: Person) -> FakeMessage | None:
        """The hand message kept in the person's DMs, the one they play from (None: the
        game ended instead)."""
        found = await self.fake.wait_for(
            lambda: hand_message(person, self.game_id) or final_board(self.fake, self.channel),
            30, f"{person.name}'s hand")
        return None if found.channel_id == self.channel else found

    async def turn(self, person: Person, before_move: Callable[[str], None] | None = None
                   ) -> None:
        """Play a turn from the hand message in the DMs, as a child with a parent would:
        the first card that offers a space, the first space. A move counts as
        acknowledged when the hand message says "Played: ..." over the new hand (the bot
        says so only after the move is committed). ``before_move``: told the action just
        before its space is tapped (``lion@B3``, or ``dead:lion`` for an exchange)."""
        hand = await self.hand(person)
        if hand is None:
            return
        for _ in range(3):  # the cards again, if the message turned out to be out of date
            for card in card_ids(hand):
                prompt = await tap_card(person, hand, card, timeout=10)
                if prompt.id == hand.id and not shows_choices(prompt):
                    break  # it was out of date, and shows the hand as it is now
                if not shows_choices(prompt):
                    if prompt.content in (NOT_YOUR_TURN, GAME_OVER, *OVER):
                        return  # a forced pass moved on meanwhile
                    continue  # a dead card with no exchange left: the next one
                if before_move is not None:
                    before_move(first_choice(prompt))
                chosen = await choose_first(person, prompt, timeout=10)
                ply, action = move_of(chosen)
                said = await self.fake.wait_for(
                    lambda c=chosen, p=prompt: played_or_refused(c, p), 10, "the move's answer")
                if said.startswith(PLAYED):
                    self.acknowledged.append((ply, action))
                    self.timeline.mark(f"{person.name}'s move acknowledged: ply {ply}, {action}")
                return
            else:
                break
        raise AssertionError(f"{person.name} found no playable card")

    async def health_says(self, status: int) -> list[str]:
        """Each process's ``/healthz`` once it answers ``status`` (waited for): its line."""
        lines = []
        for shard, base in enumerate(self.health):
            async def answered(b: str = base) -> tuple[int, str] | None:
                got = await healthz(b)
                return got if got[0] == status else None

            code, line = await until(answered, f"shard {shard}'s /healthz to say {status}")
            self.timeline.mark(f"shard {shard}: /healthz {code} {line!r}")
            lines.append(line)
        return lines

    async def click_for_answer(self, person: Person, message: FakeMessage, what: str,
                               shard: int, *, custom_id: str | None = None,
                               label: str | None = None) -> Answer:
        """Click, and note the answer the person reads and how long it took to come."""
        clicked = await person.click(message, custom_id, label=label, timeout=10)
        reply = await clicked.reply(10)
        took = (clicked.acked_at or clicked.sent_at) - clicked.sent_at
        answer = Answer(person.name, what, shard, reply.content, reply.ephemeral, took)
        self.timeline.mark(f"{person.name}: {what} (shard {shard}): answered in "
                           f"{took * 1000:.0f} ms, {'ephemeral' if reply.ephemeral else 'PUBLIC'}"
                           f": {reply.content!r}", clicked.sent_at)
        return answer

    def log_lines_around_the_outage(self, after_start: float = 10.0) -> str:
        """Both processes' log lines from the stop until ``after_start`` s after the start."""
        assert self.timeline.stopped_wall is not None
        start = (self.timeline.started_wall or time.time()) + after_start
        out = []
        for shard, process in enumerate(self.shards):
            for line in process.log().splitlines():
                when = logged_at(line)
                if when is not None and self.timeline.stopped_wall - 0.5 <= when <= start:
                    out.append(f"shard {shard}: {line}")
        return "\n".join(out)


def first_choice(prompt: FakeMessage) -> str:
    """The action of the first move a prompt offers (what ``choose_first`` clicks)."""
    buttons = [b for b in prompt.buttons() if b["custom_id"].startswith("seq:play:")]
    if buttons:
        return ":".join(str(buttons[0]["custom_id"]).split(":")[4:])
    return str(prompt.selects()[0]["options"][0]["value"])


def move_of(chosen: Interaction) -> tuple[int, str]:
    """(ply, action) of the move a click chose (a button, or a select's value)."""
    data = chosen.payload["data"]
    parts = str(data["custom_id"]).split(":")
    if parts[1] == "play":
        return int(parts[3]), ":".join(parts[4:])
    return int(parts[3]), str(data["values"][0])


def played_or_refused(chosen: Interaction, prompt: FakeMessage) -> str | None:
    if prompt.content.startswith(PLAYED) and not shows_choices(prompt):
        return prompt.content
    if chosen.followups:
        return chosen.followups[0].content
    return None


_STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) ")


def logged_at(line: str) -> float | None:
    m = _STAMP.match(line)
    if m is None:
        return None
    return time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")) + int(m.group(2)) / 1000


def shard_process(fake: FakeDiscord, tmp_path: Path, url: str, shard: int,
                  metrics_port: int) -> BotProcess:
    return BotProcess(fake, tmp_path / "unused.db", tmp_path / f"shard{shard}.log",
                      computer_delay=COMPUTER_DELAY,
                      extra_env={"DATABASE_URL": url, "SHARD_COUNT": "2",
                                 "SHARD_IDS": str(shard), "METRICS_PORT": str(metrics_port)})


@contextlib.asynccontextmanager
async def outage_table(tmp_path: Path, server: PostgresServer, url: str | None = None
                       ) -> AsyncIterator[Outage]:
    """Two processes on ``server`` (reached at ``url``: a proxy in front of it; by default
    the server itself), both ready; Ann's server on shard 1 (so her board's buttons go to
    shard 1's process, and every DM to shard 0's); Ann, Bob and an easy computer seated
    and the game started. Both processes are stopped at the end."""
    async with FakeDiscord(shards=2) as fake:
        launched = time.perf_counter()
        guild = fake.add_guild("Family", shard=1)
        ann, bob = fake.add_person("Ann", guild), fake.add_person("Bob", guild)
        ports = (free_port(), free_port())
        zero, one = (shard_process(fake, tmp_path, url or server.url(), n, ports[n])
                     for n in (0, 1))
        try:
            await asyncio.gather(zero.launch(), one.launch())
            await fake.wait_until_connected(60)
            for process in (zero, one):  # past on_ready (its recovery reads the database)
                await until(lambda p=process: " INFO sequence: ready" in p.log(),
                            "the process to be ready", timeout=30)
            run = Outage(fake, guild, server, (zero, one), ann, bob,
                         health=tuple(f"http://127.0.0.1:{p}" for p in ports))
            run.timeline.mark("both processes launched", launched)
            run.timeline.mark("both processes ready")
            lobby = await (await ann.slash("sequence new", game="kids", timeout=15)).reply(15)
            await (await bob.click(lobby, label="Join", timeout=15)).wait_ack(15)
            await fake.wait_for(lambda: "Bob" in lobby.text, 15, "Bob seated")
            await (await ann.click(lobby, label="Add computer (easy)", timeout=15)).wait_ack(15)
            await fake.wait_for(lambda: "Computer" in lobby.text, 15, "the computer seated")
            await (await ann.click(lobby, label="Start", timeout=15)).wait_ack(15)
            first = await run.next_board(0)
            run.timeline.mark("the game started")
            run.game_id = int(next(c for c in first.custom_ids()
                                   if c.startswith("seq:")).split(":")[2])
            try:
                yield run
            except BaseException:
                # a failure far from its cause (a board that never came) is read from
                # the processes' own account of the outage
                logger.error("the outage test failed; timeline:\n%s\nlogs:\n%s",
                             run.report(), run.log_lines_around_the_outage(60.0)
                             if run.timeline.stopped_wall is not None else "")
                raise
        finally:
            codes = await asyncio.gather(zero.stop(), one.stop())
            assert codes == [0, 0], (zero.log()[-3000:], one.log()[-3000:])
