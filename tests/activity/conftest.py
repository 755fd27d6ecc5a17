"""The bot with its Activity on, against the fake Discord with Activities turned on."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot import SequenceBot
from tests.activity.browser import PHONE, Screen, browser, open_screen
from tests.activity.pages import PageClient
from tests.e2e.conftest import running_bot
from tests.fakediscord import FakeDiscord, FakeGuild, Person

__all__ = ["browser"]  # (the session's Chromium, for the browser tests)


@dataclass
class Table:
    """A server with people in it, the bot with its Activity, and the pages opened."""

    discord: FakeDiscord
    guild: FakeGuild
    bot: SequenceBot
    people: dict[str, Person]
    pages: list[PageClient] = field(default_factory=list)
    screens: list[Screen] = field(default_factory=list)
    browser: Any = None

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

    async def screen(self, name: str, channel: int | None = None, *,
                     size: dict[str, int] = PHONE, motion: str = "no-preference") -> Screen:
        """``name`` opens the Activity in the browser, on a phone unless ``size`` says
        (``motion="reduce"``: a device that asks for less motion)."""
        assert self.browser is not None, "a browser test (the browser_table fixture)"
        screen = await open_screen(self.browser, self.discord, self.base, self.people[name],
                                   channel or self.guild.channel_id, size=size,
                                   motion=motion)
        self.screens.append(screen)
        return screen


@contextlib.asynccontextmanager
async def a_table(tmp_path: Path, browser: Any = None, *,
                  names: tuple[str, ...] = ("Alice", "Bob", "Carol"),
                  channels: tuple[str, ...] = ("general",), **bot: Any
                  ) -> AsyncIterator[Table]:
    """A server (Alice, Bob, Carol, or ``names``; its channels: one, or ``channels``) and
    the bot with its Activity on."""
    async with FakeDiscord(activities=True) as fake:
        guild = fake.add_guild("Family", channels=channels)
        people = {n: fake.add_person(n, guild) for n in names}
        with fake.pointed_at():
            async with running_bot(fake, guild, tmp_path / "sequence.db", activity=True,
                                   **bot) as running:
                world = Table(fake, guild, running, people, browser=browser)
                try:
                    yield world
                finally:
                    for page in world.pages:
                        await page.close()
                    for screen in world.screens:
                        await screen.close()
                assert fake.unhandled == [], fake.unhandled


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    # a seeded deal: a test reading what a move did gets the same move every run (one
    # unseeded run in many gave Bob a Dragon first, and his move placed no chip)
    async with a_table(tmp_path, game_seed=7) as world:
        yield world


@pytest_asyncio.fixture(loop_scope="session")
async def browser_table(tmp_path: Path, browser: Any) -> AsyncIterator[Table]:
    """The same, with the session's Chromium to open pages in (on the session's loop)."""
    async with a_table(tmp_path, browser, game_seed=7) as world:
        yield world
