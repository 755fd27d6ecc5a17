"""How long a click may still wait before its answer has to be on its way to Discord.

Discord takes the first answer to an interaction within 3 s of it (the time in its id);
later, the answer is refused (404 Unknown interaction) and the person reads "This
interaction failed". A tap on the hand message in the DMs is answered by changing that
message, after waits of its own: for a change of the same message under way
(``hand_locks``), for the store's row of what the message will show (``dm_memory``), for
the card's picture. Each was bounded, but not their sum with the work before them (a store
read to catch up, a slow gateway): a card's choices went out 3 s after the tap, two
processes on a loaded PostgreSQL (``tests/reliability/test_commit_cut.py``, 1 CI run in 5).

So each such wait is bounded by what is left of ``ANSWER_WITHIN``, counted from the click
itself, and a click that runs out is acknowledged first (a deferred update: the person
sees nothing of it); its answer then edits the message as the original response, which
Discord takes for 15 minutes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TypeVar

import discord

#: seconds after a click by which its answer starts, or the click is acknowledged (Discord
#: allows 3: the rest is for the answer's own flight, and a clock a little off)
ANSWER_WITHIN = 2.0

T = TypeVar("T")


def time_left(interaction: discord.Interaction) -> float:
    """Seconds left before ``interaction`` must be acknowledged (none once it is; at most
    ``ANSWER_WITHIN``, whatever the clocks say)."""
    if interaction.response.is_done():
        return float("inf")
    waited = time.time() - interaction.created_at.timestamp()
    return min(ANSWER_WITHIN, ANSWER_WITHIN - waited)


async def acknowledged(interaction: discord.Interaction) -> None:
    """Acknowledge a click not answered yet (for a component: a deferred update)."""
    if not interaction.response.is_done():
        await interaction.response.defer()


async def in_time(interaction: discord.Interaction, awaitable: Awaitable[T]) -> T:
    """What ``awaitable`` gives; if the click's time runs out first, the click is
    acknowledged meanwhile, and the wait goes on."""
    left = time_left(interaction)
    if left == float("inf"):
        return await awaitable
    # A timer, not a task to wait on: this runs twice a move, and the wait is nearly
    # always short (a task, a set and a future each time were a measurable part of it)
    acknowledging: list[asyncio.Task[None]] = []
    timer = asyncio.get_running_loop().call_later(
        max(0.0, left), lambda: acknowledging.append(
            asyncio.ensure_future(acknowledged(interaction))))
    try:
        got = await awaitable
    except BaseException:
        for ack in acknowledging:  # (the caller gave up: so does what it waited for)
            ack.cancel()
        raise
    finally:
        timer.cancel()
    for ack in acknowledging:  # (the answer must not overtake its acknowledgement)
        await ack
    return got
