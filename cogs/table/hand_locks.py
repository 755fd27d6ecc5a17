"""One change of a seat's hand message at a time (in this process).

Two kinds of change meet on the hand message kept in a person's DMs: the answers to the
person's own taps (a card's choices, the way back to the cards, the new hand after a
number), and the edits the bot makes unasked (the dead marks when the seat's turn starts,
a hand changed from the board page or by a timer). An unasked edit is decided on what the
message shows, and Discord may answer it late: a card tapped meanwhile had its choices
shown, then the edit landed and put the cards back over them, so the number the person
was about to tap was gone (the e2e bench's whole game, 1 CI run in 5; the test is
``test_a_card_tapped_while_the_dead_marks_are_on_their_way_keeps_its_choices``).

So each change holds its seat's lock from reading what the message shows until Discord
has answered it, and the next change reads what the last one left. A tap waits for the
lock as long as its click allows (``answer_time``: Discord wants an answer within 3 s of
the click), then acknowledges the click (a deferred update) and waits on; its answer then
edits the message as the original response.

Other processes are not held by it. On PostgreSQL, each unasked edit says in the store's
row, before it goes, as of which move it shows the hand (``DmMemory.editing``): an edit of
an older move than the row's is skipped, and one that a later move's edit overtook while
both were on their way is sent again (issue 46: a turn's dead marks, heard late by the
process that made the move before, put the hand from before the person's own last move
back). A tap answered by one process while another edits the same message is ordered by
Discord alone (a tap writes the row before it answers, so the window is one request's
flight).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import discord

from .answer_time import acknowledged, time_left

Seat = tuple[int, int]  # (game, seat)


class HandLocks:
    """A lock per seat's hand message, kept only while someone holds or awaits it."""

    def __init__(self) -> None:
        self._locks: dict[Seat, tuple[asyncio.Lock, int]] = {}

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def changing(self, game_id: int, seat: int, *,
                       tap: discord.Interaction | None = None) -> AsyncIterator[None]:
        """Hold the seat's hand message for one change. ``tap``: the click this change
        answers, acknowledged if the wait is long."""
        key = (game_id, seat)
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            await self._acquire(lock, tap)
            try:
                yield
            finally:
                lock.release()
        finally:
            lock, users = self._locks[key]
            if users > 1:
                self._locks[key] = (lock, users - 1)
            else:
                del self._locks[key]

    @staticmethod
    async def _acquire(lock: asyncio.Lock, tap: discord.Interaction | None) -> None:
        if tap is not None and lock.locked() and not tap.response.is_done():
            # (not ``in_time``: a lock taken just as the wait ends must not be left held)
            try:
                await asyncio.wait_for(lock.acquire(), max(0.0, time_left(tap)))
                return
            except TimeoutError:
                await acknowledged(tap)
        await lock.acquire()
