"""The ``rig`` fixture: the real bot in this process against the recording fake Discord
(``rig.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .rig import Rig, make_rig


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    async for r in make_rig(tmp_path):
        yield r
