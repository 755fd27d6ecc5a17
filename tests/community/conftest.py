"""Worlds for the community features: English and Norwegian servers, an admin in each."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from manager import ManualClock
from tests.e2e.conftest import World, make_world

MANAGE_GUILD = 1 << 5


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[World]:
    async for w in make_world(tmp_path, ("Alice", "Bob", "Carol")):
        yield w


@pytest.fixture
async def norsk(tmp_path: Path) -> AsyncIterator[World]:
    async for w in make_world(tmp_path, ("Kari", "Ola"), locale="no", guild_locale="no"):
        yield w


@pytest.fixture
async def timed_world(tmp_path: Path) -> AsyncIterator[World]:
    """A world whose game manager runs on a clock the test moves (turn timers)."""
    clock = ManualClock(start=time.time())
    async for w in make_world(tmp_path, ("Alice", "Bob", "Carol"), clock=clock):
        yield w


@pytest.fixture
async def timed_norsk(tmp_path: Path) -> AsyncIterator[World]:
    clock = ManualClock(start=time.time())
    async for w in make_world(tmp_path, ("Kari", "Ola"), locale="no", guild_locale="no",
                              clock=clock):
        yield w
