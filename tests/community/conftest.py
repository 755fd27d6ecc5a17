"""Worlds for the community features: English and Norwegian servers, an admin in each."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

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
