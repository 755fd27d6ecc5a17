"""Four ``python bot.py`` processes on one token, under a load that would overdraw its
global rate limit (issue 26, item 3): for the slow test and ``python -m bench budget``.

Each process runs one of four shards (``SHARD_COUNT=4 SHARD_IDS=n``) on one PostgreSQL
database; one fake Discord serves them all and enforces Discord's limits over all of them
at once (the token's 50 requests a second, interaction endpoints exempt; 5 messages per
5 s in a channel). The load, bounded in count and time:

- in a tidy server per shard (old boards deleted), ``computer_channels`` channels each
  running games of two computer players with no delay, one after another: a move is a
  board and the deletion of the one before, as fast as each channel's own pace allows
  (about one board a second), so 6 channels a shard ask about 50 requests a second;
- in another server per shard, ``people_tables`` pairs of people playing from their hand
  DMs at a person's pace (1 to 3 s before a click), whose moves give the board latency:
  the click that made a move to its board in the channel, on the fake's clock.

A phase runs with the bot's own global pace (``paced``) or without it
(``DISCORD_GLOBAL_LIMIT=0``: the code before the budget), on a database of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from cogs.table.manners import Layout, TableManners
from store import Store
from tests.e2e.people import boards, choose_first, whose_turn
from tests.fakediscord import ClientRefused, FakeDiscord, FakeMessage, Person
from tests.reliability.harness import BotProcess, board_messages, error_lines
from tests.reliability.players import newest_with
from tests.waiting import until

log = logging.getLogger(__name__)

SHARDS = 4
THINK_S = (1.0, 3.0)
STEP_TIMEOUT = 15.0  # a step of a person (an answer, a board) that takes longer is a stall


@dataclass(frozen=True)
class Load:
    computer_channels: int = 6  # per shard
    people_tables: int = 1  # per shard
    window_s: float = 25.0  # how long the load runs and is measured, from its start
    shards: int = SHARDS  # processes, one shard each


@dataclass
class Phase:
    """What one phase saw, on the fake Discord's side."""

    paced: bool
    global_429s: int = 0  # in the window
    route_429s: int = 0
    requests_per_s: float = 0.0  # rate-limited requests Discord accepted, in the window
    attempts_per_s: float = 0.0  # the same with the refused ones
    boards_per_s: float = 0.0
    board_ms: list[float] = field(default_factory=list)  # people's click to their board
    budget_lines: list[str] = field(default_factory=list)  # each process's REST budget
    errors: list[str] = field(default_factory=list)  # ERROR lines in the logs, under load
    # and while stopping under load (a post cut by the stop: a known race of the stop, not
    # of the budget; "before" has them too)
    errors_at_stop: list[str] = field(default_factory=list)
    stalls: int = 0  # steps of the people that never got their answer or board
    stalled: list[str] = field(default_factory=list)  # which, and what they waited for
    unopened: int = 0  # computer channels where no game had begun by the window's end

    @property
    def name(self) -> str:
        return "after" if self.paced else "before"

    def board_ms_at(self, q: float) -> float:
        ordered = sorted(self.board_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def prepare_database(url: str, tidy_guilds: list[int]) -> None:
    """Migrate the database and make the computer servers tidy, before any bot starts."""
    async with await Store.connect(url) as store:
        for guild_id in tidy_guilds:
            await Layout(store.rows).save_table_manners(TableManners(guild_id, tidy_boards=True))


def newest_board_id(fake: FakeDiscord, channel_id: int) -> int:
    """The id of the newest board in the channel (0: none): a board that comes later has a
    greater id. Counting boards instead would miss one in a tidy server, where the board
    before it can be deleted between the count and the new board (a stall that was not)."""
    posted = board_messages(fake, channel_id)
    return posted[-1].id if posted else 0


def boards_after(fake: FakeDiscord, channel_id: int, board_id: int) -> list[FakeMessage]:
    """The boards in the channel newer than ``board_id``, oldest first."""
    return [b for b in board_messages(fake, channel_id) if b.id > board_id]


def newest_final(fake: FakeDiscord, channel_id: int, after: int) -> FakeMessage | None:
    return next((b for b in reversed(boards(fake, channel_id)) if b.id > after
                 and any(c.startswith("seq:rematch:") for c in b.custom_ids())), None)


# What a step lost to Discord's refusals looks like from the people's side: an answer or a
# board that never comes (the bot gave up after discord.py's retries), a button not there.
LOST = (TimeoutError, KeyError, ClientRefused)


async def open_computer_game(fake: FakeDiscord, host: Person, channel: int, mark: int) -> None:
    """The host opens a game, seats a computer, starts and leaves (a computer takes the
    seat): a game of two computers with no delay."""
    lobby = await (await host.slash("sequence new", game="kids", channel=channel,
                                    if_someone_leaves="computer",
                                    timeout=STEP_TIMEOUT)).reply(STEP_TIMEOUT)
    before = lobby.text.count("(")
    await (await host.click(lobby, label="Add computer (easy)", timeout=STEP_TIMEOUT)
           ).wait_ack(STEP_TIMEOUT)
    await fake.wait_for(lambda: lobby.text.count("(") > before, STEP_TIMEOUT,
                        "the computer seated")
    seen = newest_board_id(fake, channel)
    await (await host.click(lobby, label="Start", timeout=STEP_TIMEOUT)).wait_ack(STEP_TIMEOUT)
    await fake.wait_for(lambda: boards_after(fake, channel, seen)
                        or newest_final(fake, channel, mark), STEP_TIMEOUT, "the first board")
    await (await host.slash("sequence leave", channel=channel, timeout=STEP_TIMEOUT)
           ).wait_ack(STEP_TIMEOUT)


async def computer_channel(fake: FakeDiscord, host: Person, channel: int, until_t: float,
                           stalls: list[str]) -> None:
    """Games of two computers in ``channel``, one after another, until ``until_t``. A game
    that could not be opened (a lobby Discord's refusals lost) is counted in ``stalls``."""
    mark = 0
    while time.monotonic() < until_t:
        try:
            await open_computer_game(fake, host, channel, mark)
        except LOST as exc:
            stalls.append(f"a computer game in {channel}: {exc}")
        with contextlib.suppress(TimeoutError):
            final = await fake.wait_for(lambda m=mark: newest_final(fake, channel, m),
                                        max(0.1, until_t - time.monotonic()), "the game's end")
            mark = final.id


async def open_people_game(fake: FakeDiscord, host: Person, guest: Person, channel: int
                           ) -> None:
    seen = newest_board_id(fake, channel)
    lobby = await (await host.slash("sequence new", game="kids", channel=channel,
                                    timeout=STEP_TIMEOUT)).reply(STEP_TIMEOUT)
    await (await guest.click(lobby, label="Join", timeout=STEP_TIMEOUT)).wait_ack(STEP_TIMEOUT)
    await fake.wait_for(lambda: guest.name in lobby.text, STEP_TIMEOUT, "seated")
    await (await host.click(lobby, label="Start", timeout=STEP_TIMEOUT)).wait_ack(STEP_TIMEOUT)
    await fake.wait_for(lambda: boards_after(fake, channel, seen), STEP_TIMEOUT,
                        "the first board")


async def play_a_move(fake: FakeDiscord, mover: Person, hand: FakeMessage, channel: int,
                      rng: random.Random) -> float | None:
    """``mover`` plays from ``hand`` as a person would (looks 1 to 3 s before the click
    that plays): the click-to-board time in ms, or None for a stale hand."""
    seen = newest_board_id(fake, channel)
    for card in [c for c in hand.custom_ids() if c.startswith("seq:card:")]:
        prompt = await (await mover.click(hand, card, timeout=STEP_TIMEOUT)).reply(STEP_TIMEOUT)
        if prompt.buttons() or prompt.selects():
            await asyncio.sleep(rng.uniform(*THINK_S))
            played = await choose_first(mover, prompt, timeout=STEP_TIMEOUT)
            new = await fake.wait_for(lambda: boards_after(fake, channel, seen),
                                      STEP_TIMEOUT, "the move's board")
            return (new[0].at - played.sent_at) * 1000
    return None


async def people_table(fake: FakeDiscord, host: Person, guest: Person, channel: int,
                       until_t: float, board_ms: list[float], rng: random.Random,
                       stalls: list[str]) -> None:
    """Two people play from their hand DMs at a person's pace until ``until_t``; each
    move's click-to-board time goes into ``board_ms``, each lost step into ``stalls``."""
    people = {host.id: host, guest.id: guest}
    while time.monotonic() < until_t:
        posted = board_messages(fake, channel)
        board = posted[-1] if posted else None
        mover = people.get(whose_turn(board) or 0) if board else None
        hand = newest_with(mover.dms(), "seq:card:") if mover else None
        try:
            if board is None or any(c.startswith("seq:rematch:") for c in board.custom_ids()):
                await open_people_game(fake, host, guest, channel)
            elif mover is None or hand is None:
                await asyncio.sleep(0.05)  # the board or the hand is on its way
            elif (took := await play_a_move(fake, mover, hand, channel, rng)) is not None:
                board_ms.append(took)
            else:
                await asyncio.sleep(0.1)  # a stale hand: the new one is on its way
        except LOST as exc:
            stalls.append(f"people in {channel}: {exc}")
            await asyncio.sleep(1.0)  # then look again at what the channel shows


async def run_phase(fake: FakeDiscord, url: str, workdir: Path, load: Load, *,
                    paced: bool) -> Phase:
    """Start the processes (``load.shards``), open every game, measure ``load.window_s``,
    stop."""
    computer_guilds = [fake.add_guild(f"Computers {s}", shard=s, channels=tuple(
        f"c{i}" for i in range(load.computer_channels))) for s in range(load.shards)]
    people_guilds = [fake.add_guild(f"People {s}", shard=s, channels=tuple(
        f"p{i}" for i in range(load.people_tables))) for s in range(load.shards)]
    await prepare_database(url, [g.id for g in computer_guilds])
    hosts = [(fake.add_person(f"Host{g.id % 1000}-{i}", g), c)
             for g in computer_guilds for i, c in enumerate(g.channel_ids)]
    pairs = [(fake.add_person(f"A{i}-{g.id % 1000}", g),
              fake.add_person(f"B{i}-{g.id % 1000}", g), c)
             for g in people_guilds for i, c in enumerate(g.channel_ids)]
    phase = Phase(paced)
    processes = [BotProcess(fake, workdir / "unused.db", workdir / f"{phase.name}-{s}.log",
                            computer_delay=0.0, extra_env={
                                "DATABASE_URL": url, "SHARD_COUNT": str(load.shards),
                                "SHARD_IDS": str(s), "CHANNEL_PACE": "5",
                                "DISCORD_GLOBAL_LIMIT": "50" if paced else "0"})
                 for s in range(load.shards)]
    try:
        await asyncio.gather(*(p.launch() for p in processes))
        await fake.wait_until_connected(120)
        await fake.wait_for(lambda: fake.commands.get(None), 60, "the global command sync")
        if paced:  # each process has counted the four (they started together)
            await until(lambda: all(f"{load.shards} processes" in p.log()
                                    for p in processes),
                        f"every process to count {load.shards} on the token", timeout=30)
        phase.budget_lines = [next((line for line in reversed(p.log().splitlines())
                                    if "REST budget" in line), "") for p in processes]
        # the window: from the moment every table is asked to open, for window_s, the same
        # span from the same start in both phases (a lobby Discord's refusals lost counts
        # as a stall and is tried again, not waited for)
        rng = random.Random(26)
        board_ms: list[float] = []
        stalls: list[str] = []
        requests_at, global_at = len(fake.requests), fake.limits.global_hits
        route_at, window_at = fake.limits.route_hits, time.perf_counter()
        until_t = time.monotonic() + load.window_s
        work = [asyncio.create_task(computer_channel(fake, host, channel, until_t, stalls))
                for host, channel in hosts]
        work += [asyncio.create_task(people_table(fake, a, b, channel, until_t, board_ms,
                                                  random.Random(rng.random()), stalls))
                 for a, b, channel in pairs]
        await asyncio.sleep(load.window_s)  # the load runs by itself meanwhile
        for task in work:
            task.cancel()
        await asyncio.gather(*work, return_exceptions=True)
        window = fake.requests[requests_at:]
        elapsed = time.perf_counter() - window_at
        phase.board_ms = board_ms
        phase.stalls, phase.stalled = len(stalls), stalls
        phase.unopened = sum(1 for _, c in hosts if not board_messages(fake, c))
        limited = [r for r in window if not r.interaction]
        phase.requests_per_s = sum(1 for r in limited if r.status != 429) / elapsed
        phase.attempts_per_s = len(limited) / elapsed
        phase.boards_per_s = sum(1 for r in window if r.method == "POST" and r.files
                                 and r.status == 200 and not r.interaction) / elapsed
        phase.global_429s = fake.limits.global_hits - global_at
        phase.route_429s = fake.limits.route_hits - route_at
    finally:
        await asyncio.gather(*(p.stop(30) for p in processes))
    phase.errors = [line for p in processes for line in error_lines(until_stop(p.log()))]
    phase.errors_at_stop = [line for p in processes for line in error_lines(p.log())
                            if line not in phase.errors]
    return phase


def until_stop(log_text: str) -> str:
    """A process's log up to its SIGTERM ("shutting down"): what it did under the load."""
    return log_text.split(" INFO sequence: shutting down", 1)[0]


async def new_database(server_url: str, name: str) -> str:
    """A fresh database on the server at ``server_url`` (its ``postgres`` database)."""
    import asyncpg

    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return server_url.rsplit("/", 1)[0] + "/" + name


async def before_and_after(server_url: str, workdir: Path, load: Load) -> tuple[Phase, Phase]:
    """Both phases in one run, each with a fake Discord and a database of its own."""
    out = []
    for paced in (False, True):
        name = "after" if paced else "before"
        url = await new_database(server_url, f"one_token_{name}_{os.getpid()}")
        async with FakeDiscord(token=f"one-token-{os.urandom(6).hex()}", shards=load.shards,
                               limits=True) as fake:
            out.append(await run_phase(fake, url, workdir, load, paced=paced))
    return out[0], out[1]
