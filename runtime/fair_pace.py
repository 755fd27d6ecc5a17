"""A smooth pace shared fairly: ``rate`` requests a second, at most ``burst`` at once,
and when requests must wait, a quiet flow is not stuck behind a busy one.

The rate is a token bucket in its GCRA form: in any ``w`` seconds at most
``burst + rate x w`` requests go. Which waiting request goes next is start-time fair
queueing: each flow (for the bot: a channel) has a virtual finish time, a request's tag is
the later of the pace's virtual time and its flow's finish, and the smallest tag goes
first; within one flow, requests keep their order. A channel with a backlog (computers
playing with no delay) has tags ahead of the virtual time. A flow with nothing waiting
(a person's board in a quiet channel) gets the virtual time less one, so it goes before
the next request of every backlogged flow rather than after the whole backlog, as in a
plain queue, or after one request of each busy flow, as in plain fair queueing. It is only
ahead once per quiet spell: its next request, if it comes before the others moved on,
takes its turn like theirs. A request someone is looking for now (``ahead``: a dealt hand
one step, a move's board two) goes further ahead still, before the quiet flows too: when a
crowd of tables opens at once, their lobbies, hellos and hands queue for seconds, and a
move's board must not wait behind them (it still waits behind its own channel's earlier
requests).

The clock and the sleep are injectable for tests.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable, Hashable

FORGET_AFTER = 1024  # flows remembered before the idle ones are forgotten


class FairPace:
    def __init__(self, rate: float, burst: int = 1, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self._clock, self._sleep = clock, sleep
        self._due = clock()  # when the next request would be due with no burst left
        self._virtual = 0.0  # the tag of the request that went last
        self._finish: dict[Hashable, float] = {}  # each flow's virtual finish time
        self._queued: dict[Hashable, int] = {}  # each flow's requests waiting now
        self._waiting: list[tuple[float, int]] = []  # (tag, arrival) heap
        # each waiter's wake-up: only the one at the head is woken when the head goes (a
        # backlog of hundreds must not all wake for every request let go)
        self._wakes: dict[int, asyncio.Event] = {}
        self._arrivals = itertools.count()
        self._closed = False
        self.rate, self.burst = rate, burst
        self.set(rate, burst)

    def set(self, rate: float, burst: int) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a pace needs a rate above 0 and a burst of at least 1")
        self.rate, self.burst = rate, burst
        self._every = 1.0 / rate
        self._slack = (burst - 1) * self._every

    @property
    def waiting(self) -> int:
        """Requests waiting for their turn now."""
        return len(self._waiting)

    def close(self) -> None:
        """The process is stopping: the requests still waiting are cancelled (their work
        is cancelled with them, as any work under way at a stop), and so is any new one,
        rather than going out later on a connection that is closed by then."""
        self._closed = True
        for wake in self._wakes.values():
            wake.set()

    async def take(self, flow: Hashable = None, *, ahead: int = 0) -> float:
        """Wait for this request's turn; returns how long it waited (0 when it did not).
        ``ahead``: how soon someone is looking for it (0: nobody waits yet): unless its own
        flow has requests still waiting (their order is kept), it goes that many virtual
        steps before the quiet flows, so before every request less urgent than it."""
        if self._closed:
            raise asyncio.CancelledError("the pace is closed: the process is stopping")
        start = self._clock()
        if ahead > 0 and not self._queued.get(flow):
            tag = self._virtual - 1.0 - ahead
        else:
            tag = max(self._virtual - 1.0, self._finish.get(flow, self._virtual - 1.0))
        self._finish[flow] = tag + 1.0
        if not self._waiting and max(self._due, start) - self._slack <= start:
            # nobody waits and the bucket has a token: it goes now, without a place in the
            # queue (most requests, whenever less is asked than the pace allows)
            self._due = max(self._due, start) + self._every
            self._went(tag)
            return 0.0
        me = (tag, next(self._arrivals))
        heapq.heappush(self._waiting, me)
        self._wakes[me[1]] = wake = asyncio.Event()
        self._queued[flow] = self._queued.get(flow, 0) + 1
        try:
            while True:
                if self._closed:
                    raise asyncio.CancelledError("the pace is closed: the process is stopping")
                if self._waiting[0] != me:
                    wake.clear()  # (no await since the look at the head: nothing is missed)
                    await wake.wait()
                    continue
                now = self._clock()
                free = max(self._due, now) - self._slack  # when the bucket has a token
                if free <= now:
                    heapq.heappop(self._waiting)
                    self._due = max(self._due, now) + self._every
                    self._went(tag)
                    return self._clock() - start
                await self._sleep(free - now)  # (a smaller tag may come meanwhile)
        finally:
            del self._wakes[me[1]]
            if self._queued[flow] > 1:
                self._queued[flow] -= 1
            else:
                del self._queued[flow]
            if me in self._waiting:  # given up (cancelled): the next one is the head now
                self._waiting.remove(me)
                heapq.heapify(self._waiting)
                self._wake_head()

    def _went(self, tag: float) -> None:
        self._virtual = max(self._virtual, tag)
        if len(self._finish) > FORGET_AFTER:  # flows whose finish has passed are idle
            self._finish = {f: t for f, t in self._finish.items() if t > self._virtual}
        self._wake_head()

    def _wake_head(self) -> None:
        if self._waiting:
            self._wakes[self._waiting[0][1]].set()
