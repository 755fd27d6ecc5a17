"""One token, one global budget, however many processes spend it.

Discord's global rate limit (50 requests a second; interaction responses and their
followups are not counted) belongs to the bot's token, not to a process: four processes
that each keep it on their own can together send 200 a second and collect 429s (and,
repeated, a temporary ban). So each process paces the requests that count to its share of
the budget: ``limit x SHARE / live processes``, the live processes being the bot
processes connected to the shared PostgreSQL database (each says who it is in
``application_name``: ``PostgresDatabase.live_processes``), looked at again every
``FOLLOW_EVERY`` seconds. One process (SQLite, or alone on PostgreSQL) has the whole
share. No process talks to another (no home-made cluster protocol): the database they
already share tells how many they are.

discord.py is hooked by its official means: an aiohttp ``TraceConfig`` handed to the
client (``Client(http_trace=...)``), whose ``on_request_start`` is awaited before every
request leaves. Only requests to the REST API base count (not the gateway's websocket,
not attachments), and of those not the interaction endpoints (``is_exempt``).

Why SHARE is 0.8 and the pace is smooth (a token bucket, ``fair_pace.FairPace``) rather
than "50 in any second": Discord counts a request when it arrives, the pace when it
leaves; between the two are the network, the request's body being written, a busy event
loop. A pace that lets a whole second's worth go at once can then land two seconds' worth
in one of Discord's windows. A smooth pace lands at most ``burst + rate x (1 s + delay)``
in any of Discord's seconds. Each process's burst (15 % of its part, at least one
request) comes out of its part, so all processes together let at most 40 go in any second
of their own clocks, whatever their number, and delays up to about a quarter of a second
on the way still stay under 50. The same margin covers the seconds after a process starts
or stops, before the others have counted again.

When more is asked than the share, requests wait, and fairly: each channel is a flow of
its own (``flow_of``), so a person's board in a quiet channel goes before the backlog of a
channel where computers play with no delay (``fair_pace``).

The counts (``BudgetCounts``) are plain attributes, for a metrics exporter to read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import SimpleNamespace

import aiohttp

from store import Store

from .fair_pace import FairPace

log = logging.getLogger("sequence")

SHARE = 0.8  # of the token's limit, for all processes together (see above)
#: of a process's part of a window, what may leave at once (at least 1). A bigger burst
#: is a smaller steady rate (the two together are the part), and the burst is what the
#: boards of moves made in the same instant go at once from while a backlog drains: with
#: a tenth (4 of 40, 3 held), the e2e bench's 50 tables had boards waiting 15-35 ms for
#: the next token, its slowest moves (``e2e_move_ms_p99`` 23-33 ms in five runs, 14-19 ms
#: in three with 6 of 40, alternating). The price: a backlog drains at 34 requests a
#: second, not 36 (the bench's 50 tables opening at once: the last hand 13.8 s after
#: Start, not 11.9; the median 7.2 s, not 7.0)
BURST = 0.15
#: of a process's burst, the requests left in the bucket by a request nobody waits for yet
#: and by a hand (``FairPace``'s ``held``, by step of ``urgent``): a backlog of either
#: leaves them, so a move's board goes at once. Below them all (step -1, the Activity's
#: look-ups: ``FairPace``'s ``below``), a request leaves all the burst but its own token
HELD = (5, 3)
MIN_PART = 0.5  # requests a window a process keeps whatever the count (40 processes...)
FOLLOW_EVERY = 2.0  # seconds between two looks at how many processes share the token

#: how soon someone is looking for the requests sent now (``GlobalBudget.urgent``; 0:
#: nobody yet), read by the pace in the request's own task (aiohttp awaits the trace there)
_URGENT: ContextVar[int] = ContextVar("rest_request_urgency", default=0)

DM_OPENING = "/users/@me/channels"  # POST: the DM channel with one person (the body names)

# Interaction endpoints, which Discord does not count against the global limit: the
# interaction's response, and its token's webhook (followups, @original edits).
_EXEMPT = re.compile(r"^/interactions/\d+/[^/]+/callback$|^/webhooks/\d+/[^/]+(/.*)?$")


def flow_of(path: str) -> Hashable:
    """Whose request it is, for the pace's fairness (``fair_pace``): its channel (or
    server), else the first part of its path (``users``, ``applications``). Opening a DM
    channel is a flow of its own each time: it is the first request of one person's DMs
    (whose channel id it is to learn), and as one ``users`` flow a room of tables opening
    at once queued every person's hand behind everyone's opening, one a round."""
    if path == DM_OPENING:
        return object()
    parts = path.strip("/").split("/")
    if parts[0] in ("channels", "guilds") and len(parts) > 1:
        return "/".join(parts[:2])
    return parts[0]


def is_exempt(path: str) -> bool:
    """Whether a REST path (after the API base, e.g. ``/channels/1/messages``) is an
    interaction endpoint, outside the global limit."""
    return _EXEMPT.match(path) is not None


@dataclass
class BudgetCounts:
    """What went through the budget, since the process started."""

    paced: int = 0  # requests that counted against the global limit
    waited: int = 0  # of them, the ones that had to wait their turn
    wait_seconds: float = 0.0  # how long they waited, in all
    exempt: int = 0  # interaction responses and followups (not counted by Discord)
    #: 429s Discord answered, by ``X-RateLimit-Scope`` (global, user, shared)
    refused: Counter[str] = field(default_factory=Counter)


class GlobalBudget:
    """This process's share of the token's global limit, applied to every REST request
    discord.py sends (``trace``, given to the client as ``http_trace``).

    ``limit`` requests per ``per`` seconds for the token (Discord: 50 per 1 s; larger bots
    can be granted more); ``limit`` 0 turns the pace off (only counting stays), for a
    test server without limits, or a rate-limit proxy that paces every process itself."""

    def __init__(self, limit: int, api_base: str, *, per: float = 1.0, share: float = SHARE,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.limit, self.per, self.share = limit, per, share
        self.api_base = api_base.rstrip("/")
        self.processes = 1
        self.counts = BudgetCounts()
        self._pace = (FairPace(*self._rate_and_burst(), held=HELD, clock=clock, sleep=sleep)
                      if limit else None)
        self._follower: asyncio.Task[None] | None = None
        self.trace = aiohttp.TraceConfig()
        self.trace.on_request_start.append(self._before)
        self.trace.on_request_end.append(self._after)

    @property
    def rate(self) -> float:
        """This process's requests a second (0: no pace)."""
        return self._pace.rate if self._pace is not None else 0.0

    @property
    def waiting(self) -> int:
        """Requests waiting for their turn now (for a metrics gauge)."""
        return self._pace.waiting if self._pace is not None else 0

    @property
    def most(self) -> str:
        """At most how many requests this process sends in any second, bursts included
        (as the log says it: ``10``, ``12.3``)."""
        return f"{(self.burst + self.rate * self.per) / self.per:.3g}"

    @property
    def burst(self) -> int:
        """How many requests this process may send at once (0: no pace)."""
        return self._pace.burst if self._pace is not None else 0

    def _rate_and_burst(self) -> tuple[float, int]:
        # this process's part of the requests all may send in one window, its burst
        # included: then the bursts of many processes cannot add up past the share
        part = self.limit * self.share / self.processes
        burst = max(1, math.floor(part * BURST))
        return max(part - burst, MIN_PART) / self.per, burst

    def set_processes(self, count: int) -> bool:
        """``count`` processes share the token now (at least this one); True if that
        changed this process's share."""
        count = max(1, count)
        if count == self.processes:
            return False
        self.processes = count
        if self._pace is not None:
            self._pace.set(*self._rate_and_burst())
        return True

    @staticmethod
    @contextlib.contextmanager
    def urgent(steps: int) -> Iterator[None]:
        """Around the requests someone is looking for now (``cogs/table/urgency.py``: a
        hand 1, a move's board 2): when requests wait their turn, these go first
        (``FairPace.take``'s ``ahead``). Below 0 (``fair_pace.BELOW``: the Activity's
        look-ups of where a page runs, which a stranger can cause): after everything
        else, and only with the bucket full."""
        token = _URGENT.set(steps)
        try:
            yield
        finally:
            _URGENT.reset(token)

    def path_of(self, url: str) -> str | None:
        """The REST path of a request's URL (``/channels/1/messages``); None when it is
        not a REST request (the gateway, an attachment)."""
        if not url.startswith(self.api_base + "/"):
            return None
        return url[len(self.api_base):].partition("?")[0]

    def counted(self, url: str) -> bool | None:
        """True: this request counts against the global limit; False: an interaction
        endpoint; None: not a REST request."""
        path = self.path_of(url)
        return None if path is None else not is_exempt(path)

    async def _before(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                      params: aiohttp.TraceRequestStartParams) -> None:
        path = self.path_of(str(params.url))
        if path is None:
            return
        if is_exempt(path):
            self.counts.exempt += 1
            return
        self.counts.paced += 1
        if self._pace is not None:
            waited = await self._pace.take(flow_of(path), ahead=_URGENT.get())
            if waited:
                self.counts.waited += 1
                self.counts.wait_seconds += waited

    async def _after(self, session: aiohttp.ClientSession, context: SimpleNamespace,
                     params: aiohttp.TraceRequestEndParams) -> None:
        if params.response.status == 429 and self.counted(str(params.url)) is not None:
            headers = params.response.headers
            scope = headers.get("X-RateLimit-Scope") or (
                "global" if headers.get("X-RateLimit-Global") else "unknown")
            self.counts.refused[scope] += 1

    async def follow(self, count: Callable[[], Awaitable[int]] | None,
                     every: float = FOLLOW_EVERY) -> None:
        """Count the processes sharing the token now, then again every ``every`` seconds
        until ``close``; ``count`` None: this process is alone (SQLite). A count that fails
        (the database away) keeps the last one."""
        if self._pace is None:
            log.info("REST budget: no pace of its own (DISCORD_GLOBAL_LIMIT=0)")
            return
        if count is not None:
            await self._recount(count, quiet=True)
        log.info("REST budget: at most %s requests/s from this process, of the token's %d "
                 "(%s)", self.most, self.limit, self._sharing())
        if count is not None:
            await self._stop_following()
            self._follower = asyncio.create_task(self._follow(count, every))

    async def _follow(self, count: Callable[[], Awaitable[int]], every: float) -> None:
        while True:
            await asyncio.sleep(every)
            await self._recount(count)

    async def _recount(self, count: Callable[[], Awaitable[int]], quiet: bool = False) -> None:
        try:
            counted = await count()
        except Exception as exc:  # the database's outage is told elsewhere, once
            log.debug("REST budget: cannot count the processes (%s); keeping %d",
                      exc, self.processes)
            return
        if self.set_processes(counted) and not quiet:
            log.info("REST budget: now at most %s requests/s from this process (%s)",
                     self.most, self._sharing())

    def _sharing(self) -> str:
        return ("alone on the token" if self.processes == 1
                else f"{self.processes} processes share the token")

    async def close(self) -> None:
        """Stop following the count, and cancel the requests still waiting (the process
        stops: call it before the HTTP session closes)."""
        await self._stop_following()
        if self._pace is not None:
            self._pace.close()

    async def _stop_following(self) -> None:
        follower, self._follower = self._follower, None
        if follower is not None:
            follower.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await follower


def processes_of(store: Store) -> Callable[[], Awaitable[int]] | None:
    """How to count the processes sharing the token: the bot processes connected to the
    store's PostgreSQL database; None on SQLite (one process, one file)."""
    return store.live_processes if store.shared else None
