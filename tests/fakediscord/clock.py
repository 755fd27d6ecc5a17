"""The fake Discord's clock: what an interaction's age is measured by, and a test can move.

Discord gives the bot 3 s to answer an interaction (``InteractionDesk.deadline``) and keeps
its token for 15 minutes (``TOKEN_LIFETIME``). A test does not wait 15 minutes: it moves
the clock (``fake.clock.advance(20 * 60)``), and every interaction started before is that
much older. Only ages are read from it; the request log's times stay real.
"""

from __future__ import annotations

import time

#: seconds an interaction's token lasts (Discord: "valid for 15 minutes")
TOKEN_LIFETIME = 15 * 60


class FakeClock:
    """``time.perf_counter()`` plus the time a test moved it on (never backwards)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def now(self) -> float:
        return time.perf_counter() + self.offset

    def advance(self, seconds: float) -> None:
        """Everything the clock dates is ``seconds`` older now."""
        if seconds < 0:
            raise ValueError("the clock does not go back")
        self.offset += seconds
