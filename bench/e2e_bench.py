"""Moves through Discord, end to end: 50 games at once against the fake Discord.

For each move clicked on a DM button, two times from the moment the fake server sends the
click to the bot: until the bot acknowledges it (``e2e_ack_ms_*``, Discord allows 3 s), and
until the new board image has arrived in the channel (``e2e_move_ms_*``). The bot
runs as its own process (``python bot.py``); the fake server and the 100 "people" share
the bench's process, and every time is taken on the fake's side, as Discord would see it.

Two paces, in the same run: people who look at the board for 1 to 3 s before they click
(``e2e_*``: 50 families playing), and people who click the instant a button appears
(``e2e_saturated_*``: an offered load with no ceiling, so its latencies are the bot's
queue at full CPU, and ``e2e_saturated_moves_per_s`` is the bot's throughput).

    python -m bench e2e
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import resource
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = int(os.environ.get("E2E_BENCH_GAMES", "50"))
MOVES_PER_GAME = 12
THINK_S = (1.0, 3.0)  # a person looks at the board and their hand before clicking


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _play(fake, channel_id: int, host, guest, acks: list[float], boards_ms: list[float],
                think: tuple[float, float] | None) -> None:
    from tests.e2e.people import boards, choose_first, latest_hand, whose_turn

    lobby = await (await host.slash("sequence new", game="kids", channel=channel_id,
                                    timeout=30)).reply(timeout=30)
    await (await guest.click(lobby, label="Join", timeout=30)).wait_ack(30)
    await fake.wait_for(lambda: guest.name in lobby.text, 30, "the guest seated")
    await (await host.click(lobby, label="Start", timeout=30)).wait_ack(30)
    people = {host.id: host, guest.id: guest}
    seen_dms: dict[int, int] = {}
    for _ in range(MOVES_PER_GAME):
        posted = await fake.wait_for(lambda: boards(fake, channel_id), 30, "a board")
        board = posted[-1]
        mover = people.get(whose_turn(board) or 0)
        if mover is None:
            return  # the game is over
        # the hand that came after this player's own last move (it may still be on its way)
        hand = await latest_hand(mover, seen_dms.get(mover.id, 0), timeout=30)
        seen_dms[mover.id] = len(mover.dms())
        prompt = None
        for card in [c for c in hand.custom_ids() if c.startswith("seq:card:")]:
            prompt = await (await mover.click(hand, card, timeout=30)).reply(timeout=30)
            if list(prompt.components()):
                break
        before = len(posted)
        if prompt is None or not list(prompt.components()):
            # not this player's turn after all (a forced pass follows the board): wait
            await fake.wait_for(lambda b=before: boards(fake, channel_id)[b:], 30, "a board")
            continue
        if think:
            await asyncio.sleep(_rng.uniform(*think))
        click = await choose_first(mover, prompt, timeout=30)
        new = await fake.wait_for(lambda b=before: boards(fake, channel_id)[b:], 30,
                                  "the board after the move")
        assert click.acked_at is not None
        acks.append((click.acked_at - click.sent_at) * 1000)
        boards_ms.append((new[0].at - click.sent_at) * 1000)


_rng = random.Random(7)


async def _bench(games: int, think: tuple[float, float] | None = THINK_S) -> dict[str, float]:
    from tests.fakediscord import FakeDiscord

    acks: list[float] = []
    boards_ms: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord() as fake:
            guild = fake.add_guild("Bench", channels=tuple(f"table-{i}" for i in range(games)))
            pairs = [(fake.add_person(f"H{i}", guild), fake.add_person(f"G{i}", guild))
                     for i in range(games)]
            # The bot runs as its own process (python bot.py), as in production: its CPU is
            # not shared with the fake server and the 100 people driving it.
            env = {**os.environ, "DISCORD_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
                   "DISCORD_GATEWAY_URL": fake.gateway_url, "DEV_GUILD_ID": str(guild.id),
                   "DATABASE_PATH": str(Path(tmp) / "bench.db"), "LOG_LEVEL": "WARNING",
                   "COMPUTER_DELAY": "0"}
            children_before = _cpu(resource.RUSAGE_CHILDREN)
            self_before = _cpu(resource.RUSAGE_SELF)
            profile = os.environ.get("E2E_BENCH_PROFILE")  # a file: cProfile the bot there
            python = [sys.executable, *(["-m", "cProfile", "-o", profile] if profile else [])]
            bot = await asyncio.create_subprocess_exec(
                *python, str(ROOT / "bot.py"), cwd=str(ROOT), env=env,
                stderr=asyncio.subprocess.PIPE)
            try:
                await fake.wait_for(lambda: fake.commands.get(guild.id), 60, "command sync")
                await fake.wait_until_connected(30)
                started = time.perf_counter()
                await asyncio.gather(*(
                    _play(fake, channel, host, guest, acks, boards_ms, think)
                    for channel, (host, guest) in zip(guild.channel_ids, pairs, strict=True)))
                elapsed = time.perf_counter() - started
            finally:
                if bot.returncode is None:
                    bot.send_signal(signal.SIGTERM)
                _, err = await asyncio.wait_for(bot.communicate(), 60)
                if bot.returncode != 0 or sys.exc_info()[0] is not None:
                    print(err.decode()[-3000:], file=sys.stderr)
            bot_cpu = _cpu(resource.RUSAGE_CHILDREN) - children_before
            fake_cpu = _cpu(resource.RUSAGE_SELF) - self_before
    return {
        "e2e_ack_ms_p50": round(statistics.median(acks), 2),
        "e2e_ack_ms_p99": round(_quantile(acks, 0.99), 2),
        "e2e_move_ms_p50": round(statistics.median(boards_ms), 2),
        "e2e_move_ms_p99": round(_quantile(boards_ms, 0.99), 2),
        "e2e_moves_per_s": round(len(boards_ms) / elapsed, 1),
        # CPU per move (whole run, lobbies included): the bot process, and the fake + people
        "e2e_bot_cpu_ms_per_move": round(bot_cpu * 1000 / len(boards_ms), 1),
        "e2e_fake_cpu_ms_per_move": round(fake_cpu * 1000 / len(boards_ms), 1),
    }


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def run() -> dict[str, float]:
    """50 games at once at a person's pace (the figures the issue asks for), the same with
    instant clicks (the bot's ceiling), and one game alone (the floor)."""
    logging.getLogger("discord").setLevel(logging.ERROR)
    paced = asyncio.run(_bench(GAMES))
    saturated = asyncio.run(_bench(GAMES, think=None))
    alone = asyncio.run(_bench(1, think=None))
    return {**paced,
            **{k.replace("e2e_", "e2e_saturated_"): v for k, v in saturated.items()},
            **{k.replace("e2e_", "e2e_one_game_"): v for k, v in alone.items()
               if k.endswith(("_p50", "_p99"))}}

if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:24s} {value}")
