"""Other people talking in a server while games go on: messages, typing and reactions at a
steady rate, as members of a busy server do all day. Discord tells a bot of each only if its
intents ask (``intents.py``); every message is kept in its channel either way, as Discord
keeps it (a bot reading the channel's history after a restart reads past them).

    async with fake.chatter(guild, per_second=50) as talk:
        ...                       # play; people chat in every channel of the server
    talk.said                     # how many messages they wrote

Bounded: it stops by itself after ``limit`` messages (and after ``seconds``, if given), and
when the block ends. Before each message its author starts typing (TYPING_START) when
``typing``; every ``react_every``-th message, someone reacts to the newest message in the
channel (often the bot's board). Who speaks where, and what, comes from ``seed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Sequence
from typing import Self

from .people import Person
from .world import World

WORDS = ("ok", "lol", "dinner is ready", "who took the charger", "brb", "nice one",
         "see you at 6", "did you feed the cat", "haha", "on my way", "can someone help me",
         "good night", "what time is it", "wow", "thanks!", "the wifi is down again")


class Chatter:
    """People writing, typing and reacting in ``channels`` at ``per_second`` messages."""

    def __init__(self, world: World, people: Sequence[Person], channels: Sequence[int], *,
                 per_second: float, limit: int = 10_000, seconds: float | None = None,
                 typing: bool = True, react_every: int = 5, seed: int = 46) -> None:
        if per_second <= 0 or not people or not channels:
            raise ValueError("chatter needs a positive rate, people and channels")
        self.world = world
        self.people = list(people)
        self.channels = list(channels)
        self.per_second = per_second
        self.limit = limit
        self.seconds = seconds
        self.typing = typing
        self.react_every = react_every
        self._rng = random.Random(seed)
        self.said = self.typed = self.reacted = 0
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._talk())

    async def stop(self) -> None:
        """Stop talking now (what was said stays said)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    @property
    def done(self) -> bool:
        """It stopped by itself: ``limit`` messages said, or ``seconds`` passed."""
        return self._task is not None and self._task.done()

    async def _talk(self) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        end = None if self.seconds is None else began + self.seconds
        while self.said < self.limit:
            # (a person's pace, not a wait for something: the rate is the point; a loaded
            # loop catches up, so the rate holds on average)
            pause = began + self.said / self.per_second - loop.time()
            if pause > 0:
                await asyncio.sleep(pause)
            if end is not None and loop.time() >= end:
                return
            self._one()

    def _one(self) -> None:
        person = self._rng.choice(self.people)
        channel = self.channels[self.said % len(self.channels)]
        if self.typing:
            person.type_in(channel)
            self.typed += 1
        if self.react_every and self.said % self.react_every == self.react_every - 1:
            newest = next((m for m in reversed(self.world.channel_messages[channel])
                           if not m.deleted and m.visible_to is None), None)
            if newest is not None:
                self._rng.choice(self.people).react(newest, self._rng.choice("👍😂🎉❤"))
                self.reacted += 1
        person.say(self._rng.choice(WORDS), channel=channel)
        self.said += 1
