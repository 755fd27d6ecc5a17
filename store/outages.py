"""Whether the database answers, and the one voice that says when it stops and comes back.

A database that goes away for a while (PostgreSQL restarted, the disk of the SQLite file
full) is met by whoever uses it next: a click, the timer loop, a computer player, the
listener for other processes' changes, the preference reload. If each said so, one 5 s
outage would fill the log with tracebacks. Instead each backend has one ``Outages``, and
every operation reports to it: a fault it classified as an outage (``failed``) or an
answer (``answered``). It logs the first fault of an outage in one line, with the reason,
and the first answer after it in one line, with how long it lasted:

    WARNING database unreachable: connection refused; retrying
    INFO    database back after 5.2 s

An answer ends an outage only if it answers a question asked since the outage began: one
asked before may have been on its way as the database stopped (``answered``).

Callers then raise ``StoreUnavailable`` and log nothing of their own. Background work that
must go on (a computer player's turn) waits with ``wait_to_retry``: woken as soon as the
database answers again, or after ``retry_every`` seconds to try once more.

A backend that can ask the database cheaply whether it answers (PostgreSQL: ``SELECT 1``)
gives a ``probe``: while the database is away it is asked every ``retry_every`` seconds,
so the end of an outage is noticed (and its length measured) without waiting for the
next click. SQLite has none: a full disk clears when a write succeeds again, which is
what the waiting work tries every ``retry_every`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

RETRY_EVERY = 0.5  # seconds between two tries while the database is away


class Outages:
    """One database's outages, said once each. ``down``: the database is away now."""

    def __init__(self, *, failing: str = "unreachable",
                 probe: Callable[[], Awaitable[object]] | None = None,
                 retry_every: float = RETRY_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``failing``: how the log line names the fault ("database <failing>: reason");
        ``probe``: a cheap question to the database (raises while it is away)."""
        self._failing = failing
        self._probe = probe
        self.retry_every = retry_every
        self._clock = clock
        self._since: float | None = None
        self._reason: str | None = None
        self._back_at: float | None = None
        self._answering = asyncio.Event()
        self._answering.set()
        self._probing: asyncio.Task[None] | None = None
        self._when_back: list[Callable[[], None]] = []
        self._closed = False  # the store closed: a use after that is no outage
        self.outages = 0  # how many began since the start (for tests and metrics)

    @property
    def down(self) -> bool:
        return self._since is not None

    @property
    def reason(self) -> str | None:
        """Why the database is away (the first fault of this outage), None while it
        answers."""
        return self._reason

    def seconds_back(self) -> float | None:
        """How long ago the database came back after its last outage (None: it never
        went away, or it is away now)."""
        if self._since is not None or self._back_at is None:
            return None
        return self._clock() - self._back_at

    def seconds_down(self) -> float:
        """How long the current outage has lasted (0 while the database answers)."""
        return 0.0 if self._since is None else self._clock() - self._since

    def when_back(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` each time the database answers again after an outage."""
        self._when_back.append(hook)

    def failed(self, reason: str) -> None:
        """An operation met an outage (``reason``: a few words for the log). The first of
        an outage is logged; the others only count towards it."""
        if self._since is not None or self._closed:
            return
        self._since = self._clock()
        self._reason = reason
        self.outages += 1
        self._answering.clear()
        log.warning("database %s: %s; retrying", self._failing, reason)
        if self._probe is not None and (self._probing is None or self._probing.done()):
            with contextlib.suppress(RuntimeError):  # no running loop: nobody to wake
                self._probing = asyncio.get_running_loop().create_task(
                    self._ask_until_answered(), name="database-probe")

    def now(self) -> float:
        """This object's time: when an operation asks (``answered``'s ``asked_at``)."""
        return self._clock()

    def answered(self, asked_at: float | None = None) -> None:
        """An operation got its answer: if the database was away, it is back.
        ``asked_at`` (``now()`` as it asked): an answer to a question asked before the
        outage began says nothing of the database now. It may have been on its way as
        the database stopped, and come in after another operation had met the outage: a
        move's COMMIT answered just before PostgreSQL stopped was taken for the database
        back, and the outage said a second time the moment after."""
        if self._since is None or (asked_at is not None and asked_at < self._since):
            return
        self._back_at = self._clock()
        lasted = self._back_at - self._since
        self._since = self._reason = None
        self._answering.set()
        log.info("database back after %.1f s", lasted)
        for hook in list(self._when_back):
            hook()

    async def until_back(self) -> None:
        """Return once the database answers (at once if it does): for work that must not
        be tried again and again meanwhile (it costs more than a query)."""
        await self._answering.wait()

    async def wait_to_retry(self) -> None:
        """Return when the database answers again, or after ``retry_every`` seconds
        (whichever comes first): then it is worth trying again."""
        # (``asyncio.timeout``: wait_for on 3.11 can swallow a cancel that comes with the
        # answer, and a computer player being stopped would then play on)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.retry_every):
                await self._answering.wait()

    async def close(self) -> None:
        self._closed = True
        probing, self._probing = self._probing, None
        if probing is not None:
            probing.cancel()
            await asyncio.gather(probing, return_exceptions=True)

    async def _ask_until_answered(self) -> None:
        assert self._probe is not None
        while self._since is not None:
            await asyncio.sleep(self.retry_every)
            try:
                await self._probe()
            except Exception:  # still away: said once already
                continue
            self.answered()
