"""The bot with its Activity on, against the fake Discord with Activities turned on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot import SequenceBot
from tests.activity.pages import PageClient
from tests.e2e.conftest import running_bot
from tests.fakediscord import FakeDiscord, FakeGuild, Person


@dataclass
class Table:
    """A server with people in it, the bot with its Activity, and the pages opened."""

    discord: FakeDiscord
    guild: FakeGuild
    bot: SequenceBot
    people: dict[str, Person]
    pages: list[PageClient] = field(default_factory=list)

    def __getitem__(self, name: str) -> Person:
        return self.people[name]

    @property
    def base(self) -> str:
        """Where the Activity is served (what Discord's proxy maps the root to)."""
        activity = self.bot.activity_app
        assert activity is not None
        return f"http://127.0.0.1:{activity.port}"

    async def page(self, name: str, channel: int | None = None, *, game: int | None = None
                   ) -> PageClient:
        """``name`` opens the Activity in ``channel`` (the server's first channel)."""
        page = await PageClient.open(self.discord, self.base, self.people[name],
                                     channel or self.guild.channel_id, game=game)
        self.pages.append(page)
        return page


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with FakeDiscord(activities=True) as fake:
        guild = fake.add_guild("Family")
        people = {n: fake.add_person(n, guild) for n in ("Alice", "Bob", "Carol")}
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "sequence.db",
                                   activity=True) as bot:
                world = Table(fake, guild, bot, people)
                try:
                    yield world
                finally:
                    for page in world.pages:
                        await page.close()
                assert fake.unhandled == [], fake.unhandled
