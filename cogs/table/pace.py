"""The bot's own pace in each channel: at most ``MESSAGES`` messages in any ``PER``
seconds, as Discord allows a channel (about 5 in 5 s), so a fast game (four computer
players with no delay) waits its turn here instead of collecting 429s.

A message that must wait is held in order: the announcements of one game are delivered one
after another, so its boards still arrive in the order of the moves.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

MESSAGES = 5
PER = 5.0  # seconds
MARGIN = 0.05  # seconds: Discord's clock and ours need not agree to the millisecond


class ChannelPace:
    """Remembers when the bot posted in each channel lately (only the last ``PER``
    seconds: an idle channel is forgotten), and makes a post wait when it would be one too
    many. The clock and the sleep are injectable for tests."""

    def __init__(self, *, messages: int = MESSAGES, per: float = PER,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.messages, self.per = messages, per
        self._clock, self._sleep = clock, sleep
        self._sent: dict[int, deque[float]] = {}

    async def turn(self, channel_id: int) -> None:
        """Wait until a message may go to ``channel_id`` now, and count it as sent. With
        ``messages`` 0 there is no pace (a test server that has no limit)."""
        if self.messages <= 0:
            return
        while True:
            now = self._clock()
            sent = self._sent.setdefault(channel_id, deque())
            while sent and now - sent[0] >= self.per:
                sent.popleft()
            if len(sent) < self.messages:
                sent.append(now)  # (no await since the check: another task cannot slip in)
                self._forget_idle(now)
                return
            await self._sleep(sent[0] + self.per - now + MARGIN)

    def _forget_idle(self, now: float) -> None:
        for channel in [c for c, s in self._sent.items() if not s or now - s[-1] >= self.per]:
            del self._sent[channel]

    def channels(self) -> int:
        """How many channels are remembered (a leak shows here)."""
        return len(self._sent)
