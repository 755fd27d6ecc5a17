"""Fixtures for the fake Discord's own tests: a server, two people and a throwaway bot."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import discord
import pytest

from tests.fakediscord import FakeDiscord
from tests.fakediscord.tiny_bot import TinyBot


@contextlib.asynccontextmanager
async def running(bot: discord.Client, server: FakeDiscord, *, timeout: float = 5.0
                  ) -> AsyncIterator[discord.Client]:
    """Run ``bot`` against ``server`` for the block; always closed, bounded in time."""
    task = asyncio.create_task(bot.start(server.token))
    try:
        done, _ = await asyncio.wait({task, asyncio.create_task(bot.wait_until_ready())},
                                     timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            task.result()  # the bot died while starting: show why
        if not bot.is_ready():
            raise TimeoutError("the bot did not get ready")
        yield bot
    finally:
        await asyncio.wait_for(bot.close(), timeout)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, timeout)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        server.add_guild("Family")
        server.add_person("Alice")
        server.add_person("Bob", locale="no")
        with server.pointed_at():
            yield server


@pytest.fixture
async def tiny(fake: FakeDiscord) -> AsyncIterator[TinyBot]:
    guild = next(iter(fake.guilds.values()))
    async with running(TinyBot(guild.id), fake) as bot:
        await fake.wait_for(lambda: fake.commands.get(guild.id), 5, "command sync")
        yield bot  # type: ignore[misc]
