"""The real bot (``bot.SequenceBot``, every cog) against the fake Discord, in one process."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import DRAIN_SECONDS, SequenceBot, bot_class
from manager import Clock, ManualClock
from runtime.settings import ActivityLimits, Settings
from tests.fakediscord import FakeDiscord, FakeGuild, Person


@dataclass
class World:
    """A server with people in it, and the bot connected to it."""

    discord: FakeDiscord
    guild: FakeGuild
    bot: SequenceBot
    people: dict[str, Person]
    clock: ManualClock | None = None  # the game manager's, when the test moves time

    def __getitem__(self, name: str) -> Person:
        return self.people[name]


@contextlib.asynccontextmanager
async def running_bot(fake: FakeDiscord, guild: FakeGuild, db: Path, *,
                      computer_delay: float = 0.0, database_url: str | None = None,
                      channel_pace: int = 0, clock: Clock | None = None,
                      metrics_port: int | None = None, activity: bool = False,
                      dev_guild: bool = True, game_seed: int | None = None,
                      preferences_every: float = 10.0, drain_seconds: float = DRAIN_SECONDS,
                      settle_heap: bool = False, shard_count: int | None = None,
                      activity_limits: ActivityLimits | None = None
                      ) -> AsyncIterator[SequenceBot]:
    """The bot against ``fake``: on the SQLite file ``db``, or on PostgreSQL at
    ``database_url`` (then no file is made). The fake has no rate limits unless a test
    turns them on, so the bot's own channel pace is off unless a test asks for it.
    ``clock``: the game manager's time (a ``ManualClock`` for turn timers);
    ``metrics_port``: /metrics and /healthz on 127.0.0.1 (0: any free port);
    ``activity``: the Activity served on a free port of 127.0.0.1, with the fake's client
    secret; ``dev_guild``: False syncs the commands globally (not to the test's server);
    ``game_seed``: every game dealt and rolled from this seed (the same game every run);
    ``preferences_every``: how often the servers' preferences are read again (several
    processes on PostgreSQL); ``drain_seconds``: how long a stop waits for the clicks under
    way; ``settle_heap``: freeze what the bot's start-up made, as ``python bot.py`` does
    (the test must ``gc.unfreeze()`` after); ``shard_count``: the sharded bot
    (``ShardedSequenceBot``) running every one of that many shards; ``activity_limits``:
    the Activity's doors (small ones, for a flood of a few dozen requests)."""
    settings = Settings(token=fake.token, database_path=db,
                        dev_guild_id=guild.id if dev_guild else None,
                        api_base=fake.api_base, gateway_url=fake.gateway_url,
                        computer_delay=computer_delay, database_url=database_url,
                        channel_pace=channel_pace, metrics_port=metrics_port,
                        activity_port=0 if activity else None, game_seed=game_seed,
                        preferences_every=preferences_every,
                        client_secret=fake.activities.client_secret if activity else None,
                        shard_count=shard_count,
                        activity_limits=activity_limits or ActivityLimits())
    bot = bot_class(settings)(settings, clock=clock, guild_ready_timeout=0.01,
                              drain_seconds=drain_seconds, settle_heap=settle_heap)
    task = asyncio.create_task(bot.start(fake.token))
    try:
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, timeout=10,
                                     return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if task in done:
            task.result()
        await fake.wait_for(lambda: fake.commands.get(guild.id if dev_guild else None), 5,
                            "command sync")
        yield bot
    finally:
        await asyncio.wait_for(bot.close(), 20)  # (a stop waits 5 s for clicks under way)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)


async def make_world(tmp_path: Path, names: tuple[str, ...], *, locale: str = "en-US",
                     guild_locale: str = "en-US", channels: tuple[str, ...] = ("general",),
                     clock: ManualClock | None = None, game_seed: int | None = None,
                     dev_guild: bool = True) -> AsyncIterator[World]:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family", locale=guild_locale, channels=channels)
        people = {n: fake.add_person(n, guild, locale=locale) for n in names}
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "sequence.db", clock=clock,
                                   game_seed=game_seed, dev_guild=dev_guild) as bot:
                yield World(fake, guild, bot, people, clock)
                assert fake.unhandled == [], fake.unhandled


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async for w in make_world(tmp_path, ("Alice", "Bob", "Carol", "Dan")):
        yield w
