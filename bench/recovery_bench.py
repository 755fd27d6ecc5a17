"""A restart shows every hand at once (issue 46): how long after the restarted bot is ready
the last hand left wrong by the kill is right again.

``TABLES`` tables of two people play Kids in one server, the bot as its own process
(``python bot.py``, the channel pace and the REST budget as they are by default). At each
table the person to move taps a card: their hand message in the DMs becomes that card's
numbered spaces. Then the bot is killed (SIGKILL) and started again. Each of those messages
must show the cards again, since no move was made. The figures, in milliseconds from the
moment the restarted bot says it is ready (its "ready" log line, read with the log's own
clock) to the edit of each message reaching the fake Discord:

- ``recovery_last_hand_ms``: the last of them (the issue's goal: at most 2,000);
- ``recovery_first_hand_ms``, ``recovery_hand_ms_p50``;
- ``recovery_hands_restored``: how many were made right (all ``TABLES`` of them, or the
  bench fails).

    python -m bench recovery
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

TABLES = 10
QUICK_TABLES = 2
READY = " sequence: ready"  # bot.py's on_ready log line (after the level)


def _log_time(line: str) -> float:
    """The epoch time of a bot log line (``%(asctime)s``: local time, milliseconds)."""
    stamp = line[:23]
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()


async def _ready_at(bot: Any, after_start: int, timeout: float = 60.0) -> float:
    """When the bot's ``after_start``-th start said it was ready (epoch seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        text = bot.log().split(f"----- start {after_start}\n", 1)
        if len(text) == 2:
            for line in text[1].splitlines():
                if line.endswith(READY):
                    return _log_time(line)
        await asyncio.sleep(0.02)  # (a bench reads a log file: nothing to wait on)
    raise RuntimeError(f"the bot never said it was ready:\n{bot.log()[-3000:]}")


async def _to_a_choice(fake: Any, host: Any, guest: Any, channel: int) -> tuple[Any, Any]:
    """A game begun at ``channel``; the mover taps a card: (the mover, the hand message,
    now showing that card's numbered spaces)."""
    from tests.e2e.people import (
        begin_game,
        card_ids,
        game_of,
        hand_message,
        shows_choices,
        tap_card,
        whose_turn,
    )

    _, board = await begin_game(fake, host, guest, channel=channel, timeout=30)
    mover = host if whose_turn(board) == host.id else guest
    game_id = game_of(board)
    hand = await fake.wait_for(lambda: hand_message(mover, game_id), 30, "the dealt hand")
    for card in card_ids(hand):
        if shows_choices(await tap_card(mover, hand, card, timeout=30)):
            return mover, hand
    raise RuntimeError("no card of the hand had a space to go to")


async def _restart(tables: int) -> dict[str, float]:
    from tests.fakediscord import FakeDiscord
    from tests.reliability.harness import BotProcess

    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord() as fake:
            guild = fake.add_guild("Bench", channels=tuple(f"table-{i}" for i in range(tables)))
            pairs = [(fake.add_person(f"H{i}", guild), fake.add_person(f"G{i}", guild))
                     for i in range(tables)]
            bot = BotProcess(fake, Path(tmp) / "bench.db", Path(tmp) / "bot.log",
                             guild_id=guild.id, computer_delay=1.5,
                             extra_env={"CHANNEL_PACE": "5"})  # the bot's defaults
            await bot.start()
            try:
                shown = await asyncio.gather(*(
                    _to_a_choice(fake, host, guest, channel)
                    for channel, (host, guest) in zip(guild.channel_ids, pairs, strict=True)))
                await bot.kill()
                since = len(fake.requests)
                await bot.start()
                ready = await _ready_at(bot, bot.starts)
                hands = {hand.id for _, hand in shown}
                await fake.wait_for(lambda: _showing_cards(shown) == hands, 30,
                                    "every hand shown again")
                offset = time.time() - time.perf_counter()  # the fake's clock to the epoch
                edits: dict[int, float] = {}
                for request in fake.requests[since:]:
                    last = request.path.rsplit("/", 1)[-1]
                    if request.method == "PATCH" and last.isdigit() and int(last) in hands:
                        edits.setdefault(int(last), request.at + offset)
                after = sorted((at - ready) * 1000 for at in edits.values())
            finally:
                await bot.stop()
    return {
        "recovery_last_hand_ms": round(after[-1], 1),
        "recovery_first_hand_ms": round(after[0], 1),
        "recovery_hand_ms_p50": round(statistics.median(after), 1),
        "recovery_hands_restored": float(len(after)),
    }


def _showing_cards(shown: list[tuple[Any, Any]]) -> set[int]:
    """The ids of the hand messages of ``shown`` that show their cards again."""
    from tests.e2e.people import card_ids, shows_choices

    return {hand.id for _, hand in shown if card_ids(hand) and not shows_choices(hand)}


def run(quick: bool = False) -> dict[str, float]:
    return asyncio.run(_restart(QUICK_TABLES if quick else TABLES))


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:32s} {value}")
