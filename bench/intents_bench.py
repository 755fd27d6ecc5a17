"""What other people's chat costs the bot (issue 46, item 5): the e2e bench's 50 games at a
person's pace (``bench/e2e_bench.py``: ``python bot.py`` against the fake Discord, its CPU
read from ``/proc``) while the same server carries other people's chat at 50 messages a
second in all its channels, each message after its author's typing, and a reaction to
every fifth (``tests/fakediscord/chatter.py``).

Two bots, alternating in one sitting (A B B A, the same games by seed): the bot as it is,
which asks the gateway for GUILDS only and keeps no message cache (``runtime/intents.py``),
and the same bot with discord.py's ``Intents.default()`` and its cache of 1,000 messages
(``bench/default_intents_bot.py``), which is sent every message, typing and reaction, its
own messages' echoes too. The fake applies the intents as Discord does
(``tests/fakediscord/intents.py``); it sends its frames uncompressed, where Discord's
zlib stream would add the work of inflating each one to the default's side.

- ``e2e_bot_cpu_ms_per_move_busy_servers``: the bot's CPU per committed move (lobbies and
  starts included), as it is; ``..._default_intents``: with discord.py's defaults;
  ``e2e_busy_servers_cpu_ratio``: the first over the second.
- ``e2e_busy_servers_gateway_events_per_move`` (and ``..._default_intents``): the gateway
  events the fake sent the bot per committed move.
- ``e2e_busy_servers_ack_ms_p99`` (and ``..._default_intents``): every interaction's
  click until the bot acknowledged it, and ``e2e_busy_servers_acks_over_3s`` (and
  ``..._default_intents``) those Discord would have refused as too late. The fake here
  takes an answer up to ``DEADLINE_S`` late, so that one late click (a loaded machine)
  does not end a run; Discord's 3 s is counted instead.
- ``e2e_busy_servers_chat_messages_per_s``: the chat's rate as it was kept.

    python -m bench intents
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.e2e_bench import MOVES_PER_GAME, THINK_S, Cost, Times, bot_process, play

GAMES = 50
CHAT_PER_S = 50.0
SEED = 2025  # every game dealt the same, in every run
OURS, DEFAULT = "ours", "default_intents"
PROGRAMS = {OURS: ("bot.py",), DEFAULT: ("-m", "bench.default_intents_bot")}
ABBA = (OURS, DEFAULT, DEFAULT, OURS)
DISCORD_DEADLINE_S = 3.0  # Discord's time to acknowledge an interaction
DEADLINE_S = 60.0  # the fake's, here: a late answer is counted, not refused


@dataclass(frozen=True)
class Sizes:
    """The full run's sizes, or ``QUICK``'s (seconds: its figures mean little)."""

    games: int = GAMES
    moves_per_game: int = MOVES_PER_GAME
    think: tuple[float, float] = THINK_S
    chat_per_s: float = CHAT_PER_S
    order: tuple[str, ...] = ABBA


QUICK = Sizes(games=2, moves_per_game=3, think=(0.05, 0.1), order=(OURS, DEFAULT))


@dataclass
class Run:
    """One bot's games among the chat."""

    variant: str
    cost: Cost
    times: Times
    events: int  # gateway events sent to the bot while measured
    acks: list[float]  # every interaction's click until acknowledged, ms
    intents: int  # what its IDENTIFY asked for
    said: int
    seconds: float


async def _busy(variant: str, sizes: Sizes) -> Run:
    from discord import Intents

    from tests.fakediscord import FakeDiscord

    times, cost = Times(), Cost()
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(interaction_deadline=DEADLINE_S) as fake:
            guild = fake.add_guild("Bench", channels=tuple(f"table-{i}"
                                                           for i in range(sizes.games)))
            pairs = [(fake.add_person(f"H{i}", guild), fake.add_person(f"G{i}", guild))
                     for i in range(sizes.games)]
            async with bot_process(fake, guild, Path(tmp) / "bench.db", cost,
                                   name=f"busy-{variant}", seed=SEED,
                                   program=PROGRAMS[variant]) as begin:
                await begin()
                session = fake.session
                assert session is not None
                expected = 1 if variant == OURS else Intents.default().value
                if session.intents != expected:
                    raise RuntimeError(f"the {variant} bot identified with intents "
                                       f"{session.intents}, not {expected}")
                sent, clicked = len(session.sent), len(fake.interactions)
                started = time.perf_counter()
                # (bounded by the block; the limit only guards a run that hangs)
                async with fake.chatter(guild, per_second=sizes.chat_per_s,
                                        limit=int(sizes.chat_per_s * 3600)) as talk:
                    await asyncio.gather(*(
                        play(fake, channel, host, guest, times, sizes.think,
                             sizes.moves_per_game)
                        for channel, (host, guest) in zip(guild.channel_ids, pairs,
                                                          strict=True)))
                seconds = time.perf_counter() - started
                events = len(session.sent) - sent
                acks = [(i.acked_at - i.sent_at) * 1000
                        for i in list(fake.interactions.values())[clicked:]
                        if i.acked_at is not None]
    return Run(variant, cost, times, events, acks, session.intents, talk.said, seconds)


def _per_move(runs: list[Run]) -> tuple[float, float]:
    """CPU ms and gateway events per committed move over ``runs``."""
    moves = max(1, sum(r.cost.moves for r in runs))
    return (sum(r.cost.bot_cpu_s for r in runs) * 1000 / moves,
            sum(r.events for r in runs) / moves)


def run(quick: bool = False) -> dict[str, float]:
    """The games among the chat, once per bot in ``Sizes.order`` (A B B A; quick: A B)."""
    sizes = QUICK if quick else Sizes()
    logging.getLogger("discord").setLevel(logging.ERROR)
    runs: list[Run] = []
    for variant in sizes.order:
        one = asyncio.run(_busy(variant, sizes))
        cpu, events = _per_move([one])
        late = sum(ms > DISCORD_DEADLINE_S * 1000 for ms in one.acks)
        print(f"   {variant:16s} {one.cost.moves:4d} moves  {cpu:6.1f} ms CPU a move  "
              f"{events:6.1f} gateway events a move  {late} of {len(one.acks)} acks over "
              f"3 s  {one.said} chat messages in {one.seconds:.0f} s (intents "
              f"{one.intents})", flush=True)
        runs.append(one)
    figures: dict[str, float] = {}
    for variant, suffix in ((OURS, ""), (DEFAULT, "_default_intents")):
        mine = [r for r in runs if r.variant == variant]
        cpu, events = _per_move(mine)
        acks = sorted(ms for r in mine for ms in r.acks)
        figures[f"e2e_bot_cpu_ms_per_move_busy_servers{suffix}"] = round(cpu, 2)
        figures[f"e2e_busy_servers_gateway_events_per_move{suffix}"] = round(events, 2)
        figures[f"e2e_busy_servers_ack_ms_p99{suffix}"] = round(
            acks[min(len(acks) - 1, int(0.99 * len(acks)))], 1)
        figures[f"e2e_busy_servers_acks_over_3s{suffix}"] = float(
            sum(ms > DISCORD_DEADLINE_S * 1000 for ms in acks))
    figures["e2e_busy_servers_cpu_ratio"] = round(
        figures["e2e_bot_cpu_ms_per_move_busy_servers"]
        / figures["e2e_bot_cpu_ms_per_move_busy_servers_default_intents"], 3)
    figures["e2e_busy_servers_chat_messages_per_s"] = round(
        sum(r.said for r in runs) / sum(r.seconds for r in runs), 1)
    return figures


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:48s} {value}")
