"""Time for the manager: a clock it can be given, so tests move time instead of sleeping.

Deadlines are wall-clock epoch seconds because they are stored in the database and must
mean the same thing after a restart.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    """Where the manager reads the time and waits."""

    def now(self) -> float:
        """Epoch seconds."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class ManualClock:
    """A clock that only moves when told to (tests). ``sleep`` returns at once: pauses
    before computer moves cost nothing, and deadlines are checked explicitly with
    ``GameManager.check_timers()`` after ``advance``."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(0)
