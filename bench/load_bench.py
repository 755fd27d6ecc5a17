"""Load: how many concurrent games the bot holds, with no Discord limit and under Discord's.

The bot runs as its own process (``python bot.py``) against the fake Discord on 127.0.0.1.
Kids games between two people each are added in steps (4, 8, 16, ...); at each step every
game is played as fast as its people can click (card, then space, from the DM hand) for a
fixed window, and the time from the click to the bot's acknowledgement is taken on the
fake's side, as Discord would see it (an ack later than Discord's 3 s counts as 3 s). The
run stops at the first step whose p99 passes 1 s, or when its time budget is spent.

Under Discord's real limits (issue 19): the same steps against the fake with ``limits=True``
(the token's global 50 requests/s, interaction endpoints exempt; 5 messages per 5 s in a
channel; 429 with ``retry_after``), people at a person's pace (1 to 3 s looking before each
click, as in the e2e bench), for a window per step. A step passes when the acks of the
move clicks have p99 under 1 s and the boards (click to the new board in the channel) p99
under 2 s; ``load_games_per_token`` is the largest step that passed, with its
``load_limited_*`` latencies, its rate-limited requests per second and
``load_rate_limit_hits`` (the 429s the limits sent in that step). The same paced steps
without limits (``load_paced_unlimited_games``) are run too when ``LOAD_PACED_UNLIMITED=1``.

Memory: the bot's resident set (``VmRSS``, peak ``VmHWM``) from ``/proc``; the memory of an
idle game is the growth of a fresh bot's RSS over 40 started games nobody plays (after 4
warm-up games, so fonts, sprites and tile caches are not counted).

Caveat: the people and the fake server share the 2 cores with the bot, so the figures are
for the whole loop on one machine, not the bot alone.

    python -m bench load        (or: make load)
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

P99_LIMIT_S = 1.0


@dataclass(frozen=True)
class Sizes:
    """How much is measured: the steps of games, each step's window, each part's time
    budget, the idle games of the memory figure."""

    steps: tuple[int, ...]
    window_s: float
    budget_s: float
    paced_steps: tuple[int, ...]
    paced_window_s: float
    paced_budget_s: float
    idle_games: int = 40
    settle_s: float = 1.0  # before a memory reading: the bot is done with what came


def _steps(name: str, default: str) -> tuple[int, ...]:
    return tuple(int(x) for x in os.environ.get(name, default).split(","))


FULL = Sizes(steps=_steps("LOAD_STEPS", "8,32,64,128,200,260,320,400"),
             window_s=float(os.environ.get("LOAD_WINDOW_S", "6")),
             budget_s=float(os.environ.get("LOAD_BUDGET_S", "150")),
             # a person's pace under Discord's limits
             paced_steps=_steps("LOAD_PACED_STEPS", "8,16,24,32,48,64,96"),
             paced_window_s=float(os.environ.get("LOAD_PACED_WINDOW_S", "12")),
             paced_budget_s=float(os.environ.get("LOAD_PACED_BUDGET_S", "180")))
# one small step of each, a few idle games: seconds, to see that the module still works
QUICK = Sizes(steps=(2,), window_s=2.0, budget_s=10.0, paced_steps=(2,),
              paced_window_s=3.0, paced_budget_s=10.0, idle_games=4, settle_s=0.3)
THINK_S = (1.0, 3.0)  # as in the e2e bench: a person looks at the board before clicking
BOARD_P99_LIMIT_S = 2.0

log = logging.getLogger(__name__)


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


class Table:
    """One channel with two people playing Kids games one after another."""

    def __init__(self, fake: Any, channel: int, host: Any, guest: Any,
                 think: tuple[float, float] | None = None, seed: int = 0) -> None:
        self.fake, self.channel, self.host, self.guest = fake, channel, host, guest
        self.moves = 0
        self.think = think
        self.rng = random.Random(seed)
        #: for each move: (ack seconds, click to the next board seconds), fake's clock
        self.timings: list[tuple[float, float]] = []

    async def open(self) -> None:
        from tests.reliability.harness import board_messages

        before = len(board_messages(self.fake, self.channel))
        lobby = await (await self.host.slash("sequence new", game="kids", channel=self.channel,
                                             timeout=30)).reply(30)
        await (await self.guest.click(lobby, label="Join", timeout=30)).wait_ack(30)
        await self.fake.wait_for(lambda: self.guest.name in lobby.text, 30, "the guest seated")
        await (await self.host.click(lobby, label="Start", timeout=30)).wait_ack(30)
        await self.fake.wait_for(
            lambda: len(board_messages(self.fake, self.channel)) > before, 30, "the board")

    async def play(self, until: float) -> None:
        """Take turns until ``until`` (monotonic); a finished game is followed by a new one."""
        from tests.e2e.people import whose_turn
        from tests.reliability.harness import board_messages
        from tests.reliability.players import newest_with

        people = {self.host.id: self.host, self.guest.id: self.guest}
        while time.monotonic() < until:
            board = board_messages(self.fake, self.channel)[-1]
            if any(c.startswith("seq:rematch:") for c in board.custom_ids()):
                await self.open()
                continue
            mover = people.get(whose_turn(board) or 0)
            if mover is None:
                await asyncio.sleep(0.05)
                continue
            seen = len(board_messages(self.fake, self.channel))
            hand = newest_with(mover.dms(), "seq:card:")
            if hand is None:
                await asyncio.sleep(0.05)
                continue
            played = None
            for card in [c for c in hand.custom_ids() if c.startswith("seq:card:")]:
                prompt = await (await mover.click(hand, card, timeout=30)).reply(30)
                buttons = [b["custom_id"] for b in prompt.buttons()
                           if b["custom_id"].startswith("seq:play:")]
                if (buttons or prompt.selects()) and self.think:
                    await asyncio.sleep(self.rng.uniform(*self.think))
                if buttons:
                    played = await mover.click(prompt, buttons[0], timeout=30)
                    await played.wait_ack(30)
                    break
                if prompt.selects():
                    menu = prompt.selects()[0]
                    played = await mover.select(prompt, menu["custom_id"],
                                                [menu["options"][0]["value"]], timeout=30)
                    await played.wait_ack(30)
                    break
            if played is None:
                await asyncio.sleep(0.1)  # a stale hand: its DM is on the way
                continue
            self.moves += 1
            # the next turn starts from the next board (and the mover's new hand)
            await self.fake.wait_for(
                lambda s=seen: len(board_messages(self.fake, self.channel)) > s, 30,
                "the next board")
            new = board_messages(self.fake, self.channel)[seen]
            if played.acked_at is not None:
                self.timings.append((played.acked_at - played.sent_at, new.at - played.sent_at))
            await asyncio.sleep(0.02)


async def _ack_times(fake: Any, since: float) -> list[float]:
    out = []
    for interaction in list(fake.interactions.values()):
        if interaction.sent_at < since:
            continue
        if interaction.acked_at is not None:
            out.append(interaction.acked_at - interaction.sent_at)
        elif time.perf_counter() - interaction.sent_at > 3.0:
            out.append(3.0)  # Discord gave up on it
    return out


async def _measure(workdir: Path, sizes: Sizes) -> dict[str, float]:
    from tests.fakediscord import FakeDiscord
    from tests.reliability.harness import BotProcess

    started = time.monotonic()
    out: dict[str, float] = {}
    async with FakeDiscord(token="load-" + os.urandom(8).hex()) as fake:
        top = max(sizes.steps)
        guild = fake.add_guild("Load", channels=tuple(f"t{i}" for i in range(top)))
        people = [(fake.add_person(f"H{i}", guild), fake.add_person(f"G{i}", guild))
                  for i in range(top)]
        bot = BotProcess(fake, workdir / "load.db", workdir / "load.log", guild_id=guild.id)
        await bot.start()
        tables: list[Table] = []
        peak_rss = 0
        try:
            await fake.wait_for(lambda: fake.commands.get(guild.id), 30, "command sync")
            for step in sizes.steps:
                if time.monotonic() - started > sizes.budget_s:
                    break
                new = [Table(fake, guild.channel_ids[i], *people[i])
                       for i in range(len(tables), step)]
                await asyncio.gather(*(t.open() for t in new))
                tables += new
                moves_before = sum(t.moves for t in tables)
                window_start = time.perf_counter()
                until = time.monotonic() + sizes.window_s
                await asyncio.gather(*(t.play(until) for t in tables), return_exceptions=True)
                elapsed = time.perf_counter() - window_start
                acks = await _ack_times(fake, window_start)
                moves = sum(t.moves for t in tables) - moves_before
                p50, p99 = _quantile(acks, 0.5), _quantile(acks, 0.99)
                peak_rss = max(peak_rss, bot.rss_kib("VmHWM"))
                print(f"   {step:4d} games: {moves / elapsed:6.1f} moves/s, ack p50 "
                      f"{p50 * 1000:6.1f} ms p99 {p99 * 1000:7.1f} ms "
                      f"({len(acks)} acks), RSS {bot.rss_kib() / 1024:.0f} MiB", flush=True)
                if p99 > P99_LIMIT_S:
                    break
                out.update(load_max_games=float(step), load_moves_per_s=round(moves / elapsed, 1),
                           load_ack_ms_p50=round(p50 * 1000, 1),
                           load_ack_ms_p99=round(p99 * 1000, 1))
            out["load_peak_rss_mib"] = round(peak_rss / 1024, 1)
        finally:
            await bot.stop()
    return out


async def _idle_memory(workdir: Path, sizes: Sizes) -> float:
    """KiB of bot memory per started game that nobody plays."""
    from tests.fakediscord import FakeDiscord
    from tests.reliability.harness import BotProcess

    warm = 4
    async with FakeDiscord(token="idle-" + os.urandom(8).hex()) as fake:
        n = warm + sizes.idle_games
        guild = fake.add_guild("Idle", channels=tuple(f"t{i}" for i in range(n)))
        tables = [Table(fake, guild.channel_ids[i], fake.add_person(f"H{i}", guild),
                        fake.add_person(f"G{i}", guild)) for i in range(n)]
        bot = BotProcess(fake, workdir / "idle.db", workdir / "idle.log", guild_id=guild.id)
        await bot.start()
        try:
            await fake.wait_for(lambda: fake.commands.get(guild.id), 30, "command sync")
            await asyncio.gather(*(t.open() for t in tables[:warm]))
            await asyncio.sleep(sizes.settle_s)
            before = bot.rss_kib()
            for chunk in range(warm, n, 10):
                await asyncio.gather(*(t.open() for t in tables[chunk:chunk + 10]))
            await asyncio.sleep(sizes.settle_s)
            after = bot.rss_kib()
        finally:
            await bot.stop()
    return round((after - before) / sizes.idle_games, 1)


async def _paced(workdir: Path, sizes: Sizes, *, limits: bool) -> dict[str, float]:
    """Games at a person's pace, added in ``sizes.paced_steps``, with Discord's limits enforced
    (``limits``) or not: the largest step whose move acks p99 < 1 s and boards p99 < 2 s."""
    from tests.fakediscord import FakeDiscord
    from tests.reliability.harness import BotProcess

    name = "limited" if limits else "paced_unlimited"
    started = time.monotonic()
    out: dict[str, float] = {f"load_{name}_games": 0.0}
    async with FakeDiscord(token=f"{name}-" + os.urandom(8).hex(), limits=limits) as fake:
        top = max(sizes.paced_steps)
        guild = fake.add_guild("Paced", channels=tuple(f"t{i}" for i in range(top)))
        people = [(fake.add_person(f"H{i}", guild), fake.add_person(f"G{i}", guild))
                  for i in range(top)]
        bot = BotProcess(fake, workdir / f"{name}.db", workdir / f"{name}.log",
                         guild_id=guild.id)
        await bot.start()
        tables: list[Table] = []
        try:
            await fake.wait_for(lambda: fake.commands.get(guild.id), 30, "command sync")
            await asyncio.sleep(1.5)  # start-up's burst of requests leaves the global window
            for step in sizes.paced_steps:
                if time.monotonic() - started > sizes.paced_budget_s:
                    print(f"   ({name}: time budget spent before {step} games)", flush=True)
                    break
                new = [Table(fake, guild.channel_ids[i], *people[i], think=THINK_S, seed=i)
                       for i in range(len(tables), step)]
                try:
                    await asyncio.gather(*(t.open() for t in new))
                except TimeoutError as exc:  # the step fails: say why, keep what passed
                    print(f"   {name} {step:4d} games: could not open the tables ({exc}); "
                          f"{fake.rate_limit_hits} 429s so far; the bot's last warnings:",
                          flush=True)
                    for line in _warnings(workdir / f"{name}.log")[-8:]:
                        print(f"      {line}", flush=True)
                    break
                tables += new
                for table in tables:
                    table.timings.clear()
                hits_before, requests_before = fake.rate_limit_hits, len(fake.requests)
                global_before = fake.limits.global_hits
                window_start = time.perf_counter()
                until = time.monotonic() + sizes.paced_window_s
                await asyncio.gather(*(t.play(until) for t in tables), return_exceptions=True)
                elapsed = time.perf_counter() - window_start
                timings = [x for t in tables for x in t.timings]
                acks = [a for a, _ in timings]
                boards = [b for _, b in timings]
                window = fake.requests[requests_before:]
                limited = sum(1 for r in window if not r.interaction)
                hits = fake.rate_limit_hits - hits_before
                ack99, board99 = _quantile(acks, 0.99), _quantile(boards, 0.99)
                print(f"   {name} {step:4d} games: {len(timings) / elapsed:5.1f} moves/s, "
                      f"{limited / elapsed:5.1f} rate-limited req/s, move ack p99 "
                      f"{ack99 * 1000:6.1f} ms, board p50 {_quantile(boards, 0.5) * 1000:6.1f}"
                      f" p99 {board99 * 1000:7.1f} ms, {hits} 429s", flush=True)
                refused = Counter(r.route for r in window if r.status == 429)
                if refused:
                    print(f"      429s by route: {dict(refused.most_common(4))}, of them "
                          f"{fake.limits.global_hits - global_before} global", flush=True)
                if not timings or ack99 >= P99_LIMIT_S or board99 >= BOARD_P99_LIMIT_S:
                    break
                out.update({
                    f"load_{name}_games": float(step),
                    f"load_{name}_moves_per_s": round(len(timings) / elapsed, 1),
                    f"load_{name}_rate_limited_requests_per_s": round(limited / elapsed, 1),
                    f"load_{name}_ack_ms_p99": round(ack99 * 1000, 1),
                    f"load_{name}_board_ms_p50": round(_quantile(boards, 0.5) * 1000, 1),
                    f"load_{name}_board_ms_p99": round(board99 * 1000, 1),
                    f"load_{name}_rate_limit_hits": float(hits),
                })
        finally:
            await bot.stop()
    return out


def _warnings(log_file: Path) -> list[str]:
    try:
        lines = log_file.read_text(errors="replace").splitlines()
    except OSError:
        return []
    return [line[:300] for line in lines if " WARNING " in line or " ERROR " in line]


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: two games a step, one step of each kind, four idle games."""
    logging.getLogger("tests").setLevel(logging.ERROR)
    sizes = QUICK if quick else FULL
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(_paced(Path(tmp), sizes, limits=True))
        figures["load_games_per_token"] = figures["load_limited_games"]
        figures["load_rate_limit_hits"] = figures.get("load_limited_rate_limit_hits", 0.0)
        if os.environ.get("LOAD_PACED_UNLIMITED") == "1":
            figures.update(asyncio.run(_paced(Path(tmp), sizes, limits=False)))
        figures.update(asyncio.run(_measure(Path(tmp), sizes)))
        figures["memory_per_game_kib"] = asyncio.run(_idle_memory(Path(tmp), sizes))
    return figures
