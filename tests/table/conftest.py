"""The Discord side of a table through the fake Discord: the real bot, real discord.py."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from manager import ManualClock
from tests.e2e.conftest import World, make_world, world  # noqa: F401  (the fixture)


@pytest.fixture
async def norsk_family(tmp_path: Path) -> AsyncIterator[World]:
    """A Norwegian server: Mum plays her own seat and her child's, Dad his own."""
    async for w in make_world(tmp_path, ("Mum", "Dad"), locale="no", guild_locale="no"):
        yield w


@pytest.fixture
async def two_tables(tmp_path: Path) -> AsyncIterator[World]:
    """A server with two channels, a game can be played in each at once."""
    async for w in make_world(tmp_path, ("Alice", "Bob"), channels=("general", "garden")):
        yield w


@pytest.fixture
async def timed_world(tmp_path: Path) -> AsyncIterator[World]:
    """A world whose game manager runs on a clock the test moves (turn timers)."""
    clock = ManualClock(start=time.time())
    async for w in make_world(tmp_path, ("Alice", "Bob", "Carol", "Dan"), clock=clock):
        yield w
