"""Moves through Discord, end to end: whole games, and 50 games at once, against the
fake Discord.

For each move clicked on a DM button, two times from the moment the fake server sends the
click to the bot: until the bot acknowledges it (``e2e_ack_ms_*``, Discord allows 3 s), and
until the new board image has arrived in the channel (``e2e_move_ms_*``). The bot
runs as its own process (``python bot.py``); the fake server and the 100 "people" share
the bench's process, and every time is taken on the fake's side, as Discord would see it.

How long a family waits before anyone can play, from the host's Start click: until the
first board (``e2e_start_to_board_ms_*``) and until the first mover's hand is in their
DMs (``e2e_start_to_hand_ms_*``). The 50 tables open at once, so these are what the
token's global limit costs a crowd (about 7 counted requests a table: the DM channels,
the hellos, the board, the hands), the slowest table waiting longest.

Two paces, in the same run: people who look at the board for 1 to 3 s before they click
(``e2e_*``: 50 families playing), and people who click the instant a button appears
(``e2e_saturated_*``: an offered load with no ceiling, so its latencies are the bot's
queue at full CPU, and ``e2e_saturated_moves_per_s`` is the bot's throughput).

What a move costs (issue 19): the requests the fake Discord counted while the games ran,
divided by the moves the bot committed (rows in its action log): those that count against
the token's global budget (``*_rate_limited_requests_per_move``) and those on interaction
endpoints (``*_interaction_requests_per_move``), with a breakdown by route printed. The
``e2e_game_*`` figures are whole two-person Kids games (three, the same every run: see
``WHOLE_KIDS_SEEDS``) played from the DMs, start to final board, as a new family would
play them; ``e2e_dice_game_*`` the same for one Sequence Dice game played with Roll on
each board; ``e2e_*`` are the 50 games of 12 moves each
(lobbies included).

Whether the hand kept in the DMs is true (issue 25): at each turn of the whole Kids games,
the hand message that stays in the mover's DMs (not an ephemeral answer: the app forgets
those when it reloads) is compared with the cards the bot's store says they hold
(``e2e_game_stale_kept_hands`` of ``e2e_game_turns_checked``).

    python -m bench e2e
    E2E_BENCH_PYSPY=/tmp/bot.txt python -m bench e2e   # also sample the bot with py-spy
    E2E_BENCH_PROFILE=/tmp/bot.prof python -m bench e2e   # or run it under cProfile

With ``E2E_BENCH_PYSPY`` each run's bot is sampled (``py-spy record --format raw``) while
the games run, start-up excluded, into that file with the run's name before the suffix;
``python -m bench.profile_report FILE`` sums it up by function and by part of the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import resource
import shutil
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GAMES = int(os.environ.get("E2E_BENCH_GAMES", "50"))
MOVES_PER_GAME = 12
THINK_S = (1.0, 3.0)  # a person looks at the board and their hand before clicking
ROUTES_SHOWN = 12  # the busiest routes printed for each run
# The whole games are the same games every run, and several of them: a game's length alone
# decides how much its fixed cost (the lobby, the hellos, the deal: about 10 requests)
# weighs per move, 17 moves or 36 is 1.6 or 1.3 for the same code.
WHOLE_KIDS_SEEDS = (2025, 2026, 2027)
WHOLE_DICE_SEED = 2025
# The crowd's games are one seeded game each (the same deal at every table, every run): a
# game that ends in its 12 moves costs its replay GIF (about 0.2 s of CPU), and unseeded,
# 3 to 8 of the 50 ended, which moved the CPU per move by 1 to 3 ms between two runs of
# the same code. This deal's game lasts longer than 12 moves.
CROWD_SEED = 2025

log = logging.getLogger(__name__)


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Times:
    """What the people waited for, in milliseconds, on the fake's side."""

    acks: list[float] = field(default_factory=list)  # a move's click, until acknowledged
    boards: list[float] = field(default_factory=list)  # a move's click, until its board
    starts: list[float] = field(default_factory=list)  # Start, until the first board
    hands: list[float] = field(default_factory=list)  # Start, until the first mover's hand

    def figures(self) -> dict[str, float]:
        return {
            "e2e_ack_ms_p50": round(statistics.median(self.acks), 2),
            "e2e_ack_ms_p99": round(_quantile(self.acks, 0.99), 2),
            "e2e_move_ms_p50": round(statistics.median(self.boards), 2),
            "e2e_move_ms_p99": round(_quantile(self.boards, 0.99), 2),
            "e2e_start_to_board_ms_p50": round(statistics.median(self.starts), 1),
            "e2e_start_to_board_ms_max": round(max(self.starts), 1),
            "e2e_start_to_hand_ms_p50": round(statistics.median(self.hands), 1),
            "e2e_start_to_hand_ms_max": round(max(self.hands), 1),
        }


async def play(fake: Any, channel_id: int, host: Any, guest: Any, times: Times,
               think: tuple[float, float] | None, moves: int = MOVES_PER_GAME) -> None:
    """One table's game of ``moves`` moves from its lobby, the host and guest clicking in
    the DMs after looking ``think`` seconds (None: at once); what they waited, in ``times``."""
    from tests.e2e.people import (
        boards,
        card_ids,
        choose_first,
        game_of,
        hand_message,
        shows_choices,
        tap_card,
        whose_turn,
    )

    lobby = await (await host.slash("sequence new", game="kids", channel=channel_id,
                                    timeout=30)).reply(timeout=30)
    await (await guest.click(lobby, label="Join", timeout=30)).wait_ack(30)
    await fake.wait_for(lambda: guest.name in lobby.text, 30, "the guest seated")
    start = await host.click(lobby, label="Start", timeout=30)
    await start.wait_ack(30)
    people = {host.id: host, guest.id: guest}
    for turn in range(moves):
        posted = await fake.wait_for(lambda: boards(fake, channel_id), 30, "a board")
        board = posted[-1]
        mover = people.get(whose_turn(board) or 0)
        if mover is None:
            return  # the game is over
        # the hand message kept in the mover's DMs (the deal's, changed in place since)
        game_id = game_of(board)
        hand = await fake.wait_for(lambda m=mover, g=game_id: hand_message(m, g), 30,
                                   f"{mover.name}'s hand")
        if turn == 0:  # (a family's wait before anyone can play: the start of a crowd)
            times.starts.append((posted[0].at - start.sent_at) * 1000)
            times.hands.append((hand.at - start.sent_at) * 1000)
        prompt = None
        for card in card_ids(hand):
            prompt = await tap_card(mover, hand, card, timeout=30)
            if shows_choices(prompt):
                break
        before = len(posted)
        if prompt is None or not shows_choices(prompt):
            # not this player's turn after all (a forced pass follows the board): wait
            await fake.wait_for(lambda b=before: boards(fake, channel_id)[b:], 30, "a board")
            continue
        if think:
            await asyncio.sleep(_rng.uniform(*think))
        click = await choose_first(mover, prompt, timeout=30)
        new = await fake.wait_for(lambda b=before: boards(fake, channel_id)[b:], 30,
                                  "the board after the move")
        assert click.acked_at is not None
        times.acks.append((click.acked_at - click.sent_at) * 1000)
        times.boards.append((new[0].at - click.sent_at) * 1000)
        # the hand message becomes the new hand just after the board (a person sees it
        # change; after an exchange, it is the same person's turn again at once)
        await fake.wait_for(lambda p=prompt: not shows_choices(p), 30, "the new hand")


_rng = random.Random(7)


@dataclass
class Cost:
    """What the bot spent while the games ran: CPU, requests, committed moves."""

    bot_cpu_s: float = 0.0
    fake_cpu_s: float = 0.0
    moves: int = 0
    requests: list[Any] = field(default_factory=list)

    def add(self, other: Cost) -> None:
        """Another run's cost counted with this one's (several whole games)."""
        self.bot_cpu_s += other.bot_cpu_s
        self.fake_cpu_s += other.fake_cpu_s
        self.moves += other.moves
        self.requests += other.requests

    def dm_channel_opens_per_person(self) -> float:
        """DM channels the bot opened (``POST /users/@me/channels``) per person it opened
        one for: 1 when each person's is opened once (a DM channel's id never changes)."""
        opens = [r for r in self.requests
                 if r.method == "POST" and r.route == "POST /users/@me/channels"]
        people = {(r.body or {}).get("recipient_id") for r in opens
                  if isinstance(r.body, dict)}
        return round(len(opens) / len(people), 2) if people else 0.0

    def figures(self, prefix: str) -> dict[str, float]:
        moves = max(self.moves, 1)
        limited = sum(1 for r in self.requests if not r.interaction)
        return {
            f"{prefix}_committed_moves": float(self.moves),
            f"{prefix}_rate_limited_requests_per_move": round(limited / moves, 2),
            f"{prefix}_interaction_requests_per_move":
                round((len(self.requests) - limited) / moves, 2),
            # CPU per committed move (lobbies included): the bot process, the fake + people
            f"{prefix}_bot_cpu_ms_per_move": round(self.bot_cpu_s * 1000 / moves, 1),
            f"{prefix}_fake_cpu_ms_per_move": round(self.fake_cpu_s * 1000 / moves, 1),
            f"{prefix}_dm_channel_opens_per_person": self.dm_channel_opens_per_person(),
        }

    def print_routes(self, title: str) -> None:
        """Requests per committed move by route, the busiest first (rate-limited marked)."""
        moves = max(self.moves, 1)
        counts = Counter((r.route, r.interaction) for r in self.requests)
        print(f"   {title}: requests per committed move by route ({self.moves} moves)")
        for (route, interaction), n in counts.most_common(ROUTES_SHOWN):
            kind = "interaction" if interaction else "RATE-LIMITED"
            print(f"     {n / moves:6.2f}  {kind:12s} {route}", flush=True)


@contextlib.asynccontextmanager
async def bot_process(fake: Any, guild: Any, db: Path, cost: Cost, *, name: str,
                      seed: int | None = None, program: tuple[str, ...] = ("bot.py",)
                      ) -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """``python bot.py`` against ``fake`` until the block ends. Yields ``begin``: await it
    when the measured part starts (the bot is connected and synced by then); CPU and
    requests are counted from there to the end of the block. ``seed``: every game's seed
    (the same game each run, so a before and an after compare like with like);
    ``program``: what ``python`` runs instead of ``bot.py`` (``-m``, a module), in the
    same environment."""
    env = {**os.environ, "DISCORD_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
           "DISCORD_GATEWAY_URL": fake.gateway_url, "DEV_GUILD_ID": str(guild.id),
           "DATABASE_PATH": str(db), "LOG_LEVEL": "WARNING", "COMPUTER_DELAY": "0"}
    if seed is not None:
        env["SEQUENCE_SEED"] = str(seed)
    profile = os.environ.get("E2E_BENCH_PROFILE")  # a file: cProfile the bot there
    if profile:
        profile = _named(profile, name)
    python = [sys.executable, *(["-m", "cProfile", "-o", profile] if profile else [])]
    bot = await asyncio.create_subprocess_exec(
        *python, *program, cwd=str(ROOT), env=env, stderr=asyncio.subprocess.PIPE)
    spy: asyncio.subprocess.Process | None = None
    marks: dict[str, float] = {}

    async def begin() -> None:
        nonlocal spy
        await fake.wait_for(lambda: fake.commands.get(guild.id), 60, "command sync")
        await fake.wait_until_connected(30)
        spy = await _start_spy(bot.pid, name)
        marks["requests"] = len(fake.requests)
        marks["children"] = _cpu(resource.RUSAGE_CHILDREN)
        marks["self"] = _cpu(resource.RUSAGE_SELF)
        marks["bot"] = _proc_cpu(bot.pid)

    failed = False
    try:
        yield begin
    except BaseException:
        failed = True
        raise
    finally:
        if "requests" in marks:
            cost.requests = list(fake.requests[int(marks["requests"]):])
            cost.fake_cpu_s = _cpu(resource.RUSAGE_SELF) - marks["self"]
            # the bot's own clock from /proc while it still runs (py-spy is not counted)
            cost.bot_cpu_s = _proc_cpu(bot.pid) - marks["bot"]
        if spy is not None and spy.returncode is None:
            spy.send_signal(signal.SIGINT)  # py-spy writes its samples when interrupted
            await asyncio.wait_for(spy.wait(), 60)
        if bot.returncode is None:
            bot.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(bot.communicate(), 60)
        if bot.returncode != 0 or failed:
            print(err.decode()[-3000:], file=sys.stderr)
        cost.moves = _committed_moves(db)


async def _start_spy(pid: int | None, name: str) -> asyncio.subprocess.Process | None:
    out = os.environ.get("E2E_BENCH_PYSPY")
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not out or pid is None or not Path(spy).exists():
        return None
    return await asyncio.create_subprocess_exec(
        spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "250", "--nonblocking",
        "--output", _named(out, name), stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL)


def _named(path: str, name: str) -> str:
    p = Path(path)
    return str(p.with_name(f"{p.stem}-{name}{p.suffix}"))


def _committed_moves(db: Path) -> int:
    """Rows in the bot's action log: every move it committed (passes and exchanges too)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM actions").fetchone()[0])


def _proc_cpu(pid: int | None) -> float:
    """User + system CPU seconds of a running process (``/proc/<pid>/stat``)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _bench(games: int, think: tuple[float, float] | None = THINK_S, *,
                 name: str = "paced", limits: bool = False, moves: int = MOVES_PER_GAME
                 ) -> tuple[dict[str, float], Cost]:
    from tests.fakediscord import FakeDiscord

    times = Times()
    cost = Cost()
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(limits=limits) as fake:
            guild = fake.add_guild("Bench", channels=tuple(f"table-{i}" for i in range(games)))
            pairs = [(fake.add_person(f"H{i}", guild), fake.add_person(f"G{i}", guild))
                     for i in range(games)]
            # The bot runs as its own process (python bot.py), as in production: its CPU is
            # not shared with the fake server and the 100 people driving it.
            async with bot_process(fake, guild, Path(tmp) / "bench.db", cost,
                                   name=name, seed=CROWD_SEED) as begin:
                await begin()
                started = time.perf_counter()
                await asyncio.gather(*(
                    play(fake, channel, host, guest, times, think, moves)
                    for channel, (host, guest) in zip(guild.channel_ids, pairs, strict=True)))
                elapsed = time.perf_counter() - started
    return {
        **times.figures(),
        "e2e_moves_per_s": round(len(times.boards) / elapsed, 1),
        **cost.figures("e2e"),
    }, cost


@dataclass
class Staleness:
    """Turns at which the hand message kept in the mover's DMs (what is left after the app
    reloads) did not show the cards they hold."""

    turns: int = 0
    stale: int = 0

    def add(self, other: Staleness) -> None:
        self.turns += other.turns
        self.stale += other.stale

    def figures(self, prefix: str) -> dict[str, float]:
        return {f"{prefix}_turns_checked": float(self.turns),
                f"{prefix}_stale_kept_hands": float(self.stale)}


def _true_hand(db: Path, game_id: int, user_id: int) -> tuple[int, str] | None:
    """The seat ``user_id`` plays and its cards now, as the bot's own store holds them
    (the bot runs as its own process: the bench reads its SQLite file), in the words of
    the hand picture's alt text."""
    from cogs.table.hands import hand_cards
    from engine.factory import load

    with contextlib.closing(sqlite3.connect(db)) as conn:
        seat = conn.execute("SELECT seat FROM seats WHERE game_id = ? AND user_id = ?",
                            (game_id, user_id)).fetchone()
        snapshot = conn.execute("SELECT snapshot FROM games WHERE id = ?",
                                (game_id,)).fetchone()
    if seat is None or snapshot is None or snapshot[0] is None:
        return None
    obs = load(json.loads(snapshot[0])).observation(int(seat[0]))
    return int(seat[0]), hand_cards(obs, "en")


def _checking_kept_hands(turn: Any, db: Path, staleness: Staleness) -> Any:
    """``turn``, after counting whether the mover's kept DM hand shows their cards."""
    from tests.e2e.people import cards_shown, kept_hand

    async def checked(person: Any, board: Any) -> None:
        game_id = next((int(c.rsplit(":", 1)[1]) for c in board.custom_ids()
                        if c.startswith("seq:hand:")), None)
        truth = _true_hand(db, game_id, person.id) if game_id is not None else None
        if truth is not None and game_id is not None:
            seat, cards = truth
            held = await person.server.wait_for(
                lambda: kept_hand(person, game_id, seat), 15, f"{person.name}'s kept hand")
            staleness.turns += 1
            staleness.stale += cards_shown(held) != cards
        await turn(person, board)

    return checked


async def _whole_game(kind: str, seed: int, *, limits: bool = False
                      ) -> tuple[Cost, Staleness]:
    """One two-person game from the lobby to the final board: Kids played from the DMs as
    the e2e tests do (``tests/e2e/people.turn_from_dm``), counting at each turn whether the
    hand kept in the mover's DMs is true; Dice by Roll on each board."""
    from tests.e2e.people import boards, play_until_over, turn_by_roll, turn_from_dm
    from tests.fakediscord import FakeDiscord

    cost = Cost()
    staleness = Staleness()
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(limits=limits) as fake:
            guild = fake.add_guild("Family", channels=("general",))
            alice, bob = fake.add_person("Alice", guild), fake.add_person("Bob", guild)
            channel = guild.channel_ids[0]
            db = Path(tmp) / "game.db"
            async with bot_process(fake, guild, db, cost, name=f"game-{kind}-{seed}",
                                   seed=seed) as begin:
                await begin()
                lobby = await (await alice.slash("sequence new", game=kind, channel=channel,
                                                 timeout=30)).reply(30)
                await (await bob.click(lobby, label="Join", timeout=30)).wait_ack(30)
                await fake.wait_for(lambda: "Bob" in lobby.text, 30, "Bob seated")
                await (await alice.click(lobby, label="Start", timeout=30)).wait_ack(30)
                await fake.wait_for(lambda: boards(fake, channel), 30, "the first board")
                turn = (_checking_kept_hands(turn_from_dm, db, staleness) if kind == "kids"
                        else turn_by_roll)
                await play_until_over(fake, channel, [alice, bob], turn)
                await asyncio.sleep(0.5)  # the last hands and edits land
    return cost, staleness


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@dataclass(frozen=True)
class Sizes:
    """How much is played: the full run's sizes, or ``QUICK``'s (seconds, to see that the
    module still works: its figures mean little)."""

    kids_seeds: tuple[int, ...] = WHOLE_KIDS_SEEDS
    dice_game: bool = True
    games: int = GAMES
    moves_per_game: int = MOVES_PER_GAME
    think: tuple[float, float] = THINK_S
    ceiling_and_floor: bool = True  # the saturated games and the game alone


QUICK = Sizes(kids_seeds=WHOLE_KIDS_SEEDS[:1], dice_game=False, games=2, moves_per_game=3,
              think=(0.05, 0.1), ceiling_and_floor=False)


def run(quick: bool = False) -> dict[str, float]:
    """Whole games (the issue's measure), 50 games at once at a person's pace, the same
    with instant clicks (the bot's ceiling), and one game alone (the floor). ``quick``: one
    whole Kids game, and two games of three moves at a quick person's pace (no Dice game,
    no ceiling, no floor: the same code as the paced games, with other sizes)."""
    sizes = QUICK if quick else Sizes()
    logging.getLogger("discord").setLevel(logging.ERROR)
    game, staleness = Cost(), Staleness()
    for seed in sizes.kids_seeds:
        one, kept = asyncio.run(_whole_game("kids", seed))
        print(f"   whole Kids game (seed {seed}): {one.moves} moves, {kept.stale} of "
              f"{kept.turns} kept hands stale", flush=True)
        game.add(one)
        staleness.add(kept)
    game.print_routes(f"{len(sizes.kids_seeds)} whole Kids games")
    figures = {**game.figures("e2e_game"), **staleness.figures("e2e_game")}
    if sizes.dice_game:
        dice, _ = asyncio.run(_whole_game("dice", WHOLE_DICE_SEED))
        dice.print_routes("one whole Dice game")
        figures.update(dice.figures("e2e_dice_game"))
    paced, paced_cost = asyncio.run(_bench(sizes.games, sizes.think,
                                           moves=sizes.moves_per_game))
    paced_cost.print_routes(f"{sizes.games} games at a person's pace")
    if not sizes.ceiling_and_floor:
        return {**figures, **paced}
    saturated, _ = asyncio.run(_bench(sizes.games, think=None, name="saturated",
                                      moves=sizes.moves_per_game))
    alone, _ = asyncio.run(_bench(1, think=None, name="alone", moves=sizes.moves_per_game))
    return {**figures, **paced,
            **{k.replace("e2e_", "e2e_saturated_"): v for k, v in saturated.items()},
            **{k.replace("e2e_", "e2e_one_game_"): v for k, v in alone.items()
               if k.endswith(("_p50", "_p99"))}}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:24s} {value}")
