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
move's board must not wait behind them. Its own channel's earlier requests still go
before it (a channel's order is kept), but they are lifted to its step: a hand by DM
queued behind that person's hello, or a board behind its channel's lobby edit, waited
behind the whole crowd for the one request in front of it.

Going first is not enough while a backlog drains: the bucket is then always empty, and
even the first in line waits for the next token. So part of the burst is held for the
urgent (``held``): ``held[k]`` is how many of the burst's tokens a request ``k`` steps
urgent leaves in the bucket (none past the end of ``held``). A backlog of what nobody
waits for, or of dealt hands, then drains with the last few tokens left, and a move's
board arriving meanwhile goes at once. The rate is the same (the backlog goes at the
pace, with a smaller bucket), and so is the bound on any window: no request reaches
further than the whole burst.

Below every step (``ahead`` < 0: ``BELOW``) are the requests a stranger can cause: the
Activity's look-ups of where a page runs, which anyone with a session may ask for with a
made-up instance. Whatever their tags, they go after every request of the steps above
that waits (a board, a hand, and what nobody waits for yet all go first), fairly among
themselves, and they leave tokens of their own in the bucket (``below``; by default all
but the one they take: a look-up goes only with the bucket full). So a flood of them,
however bounded elsewhere, never delays a family's board by a token: a board arriving
just after a look-up went finds the burst as it was.

The clock and the sleep are injectable for tests.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass, field

FORGET_AFTER = 1024  # flows remembered before the idle ones are forgotten
BELOW = -1  # the step below every other (``ahead``): what a stranger can make the bot ask


@dataclass(order=True)
class _Waiter:
    """A request waiting for its turn: the smallest (below, tag, arrival) goes next."""

    below: bool  # (compared first) a request below every step goes after all the others
    tag: float
    arrival: int
    flow: Hashable = field(compare=False)
    ahead: int = field(compare=False)
    wake: asyncio.Event = field(compare=False, default_factory=asyncio.Event)


class FairPace:
    def __init__(self, rate: float, burst: int = 1, *, held: Sequence[int] = (),
                 below: int | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        """``held[k]``: the tokens a request ``k`` steps urgent leaves in the bucket;
        ``below``: those a request below every step leaves (None: all but its own)."""
        self._clock, self._sleep = clock, sleep
        self._due = clock()  # when the next request would be due with no burst left
        self._virtual = 0.0  # the tag of the request that went last
        self._finish: dict[Hashable, float] = {}  # each flow's virtual finish time
        # the same for the requests below every step, a queue of their own under the rest
        self._below_virtual = 0.0
        self._below_finish: dict[Hashable, float] = {}
        self._flows: dict[Hashable, list[_Waiter]] = {}  # each flow's waiters, in order
        # a heap; only the waiter at its head is woken when the head goes (a backlog of
        # hundreds must not all wake for every request let go)
        self._waiting: list[_Waiter] = []
        self._arrivals = itertools.count()
        self._closed = False
        self.rate, self.burst, self.held, self.below = rate, burst, tuple(held), below
        self.set(rate, burst)

    def set(self, rate: float, burst: int) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a pace needs a rate above 0 and a burst of at least 1")
        self.rate, self.burst = rate, burst
        self._every = 1.0 / rate

    def _slack(self, ahead: int) -> float:
        """How far ahead of its time a request ``ahead`` steps urgent may go: the burst's
        tokens less those held for the more urgent (see the module's doc)."""
        if ahead < 0:
            left = self.burst - 1 if self.below is None else self.below
        else:
            left = self.held[ahead] if ahead < len(self.held) else 0
        return max(0, self.burst - 1 - left) * self._every

    @property
    def waiting(self) -> int:
        """Requests waiting for their turn now."""
        return len(self._waiting)

    def close(self) -> None:
        """The process is stopping: the requests still waiting are cancelled (their work
        is cancelled with them, as any work under way at a stop), and so is any new one,
        rather than going out later on a connection that is closed by then."""
        self._closed = True
        for waiter in self._waiting:
            waiter.wake.set()

    async def take(self, flow: Hashable = None, *, ahead: int = 0) -> float:
        """Wait for this request's turn; returns how long it waited (0 when it did not).
        ``ahead``: how soon someone is looking for it (0: nobody waits yet): it goes that
        many virtual steps before the quiet flows, so before every request less urgent
        than it, after its own flow's earlier requests, which it lifts to its step; below 0
        (``BELOW``), after every other request waiting."""
        if self._closed:
            raise asyncio.CancelledError("the pace is closed: the process is stopping")
        start = self._clock()
        below = ahead < 0
        key: Hashable = (BELOW, flow) if below else flow  # (its own queue's flows)
        if below:
            tag = max(self._below_virtual - 1.0,
                      self._below_finish.get(flow, self._below_virtual - 1.0))
            self._below_finish[flow] = tag + 1.0
        elif ahead > 0:
            tag = self._virtual - 1.0 - ahead
            self._lift(self._flows.get(flow, []), tag, ahead)
            self._finish[flow] = tag + 1.0
        else:
            tag = max(self._virtual - 1.0, self._finish.get(flow, self._virtual - 1.0))
            self._finish[flow] = tag + 1.0
        if not self._waiting and max(self._due, start) - self._slack(ahead) <= start:
            # nobody waits and the bucket has a token: it goes now, without a place in the
            # queue (most requests, whenever less is asked than the pace allows)
            self._due = max(self._due, start) + self._every
            self._went(tag, below)
            return 0.0
        me = _Waiter(below, tag, next(self._arrivals), key, ahead)
        heapq.heappush(self._waiting, me)
        self._flows.setdefault(key, []).append(me)
        try:
            while True:
                if self._closed:
                    raise asyncio.CancelledError("the pace is closed: the process is stopping")
                if self._waiting[0] is not me:
                    me.wake.clear()  # (no await since the look at the head: nothing is missed)
                    await me.wake.wait()
                    continue
                now = self._clock()
                free = max(self._due, now) - self._slack(me.ahead)  # its token's time
                if free <= now:
                    heapq.heappop(self._waiting)
                    self._due = max(self._due, now) + self._every
                    self._went(me.tag, below)
                    return self._clock() - start
                await self._sleep(free - now)  # (a smaller tag may come meanwhile)
        finally:
            mine = self._flows[key]
            mine.remove(me)
            if not mine:
                del self._flows[key]
            if me in self._waiting:  # given up (cancelled): the next one is the head now
                self._waiting.remove(me)
                heapq.heapify(self._waiting)
                self._wake_head()

    def _lift(self, waiters: list[_Waiter], tag: float, ahead: int) -> None:
        """The requests before an urgent one in its flow go as soon as it would (their
        order kept: they keep their earlier arrival), with its share of the held burst."""
        lifted = False
        for waiter in waiters:
            if waiter.tag > tag or waiter.ahead < ahead:
                waiter.tag, waiter.ahead = min(waiter.tag, tag), max(waiter.ahead, ahead)
                lifted = True
        if lifted:
            heapq.heapify(self._waiting)
            self._wake_head()

    def _went(self, tag: float, below: bool = False) -> None:
        if below:
            self._below_virtual = max(self._below_virtual, tag)
            if len(self._below_finish) > FORGET_AFTER:
                self._below_finish = {f: t for f, t in self._below_finish.items()
                                      if t > self._below_virtual}
        else:
            self._virtual = max(self._virtual, tag)
            if len(self._finish) > FORGET_AFTER:  # flows whose finish has passed are idle
                self._finish = {f: t for f, t in self._finish.items() if t > self._virtual}
        self._wake_head()

    def _wake_head(self) -> None:
        if self._waiting:
            self._waiting[0].wake.set()
