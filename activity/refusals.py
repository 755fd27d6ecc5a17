"""Every refusal at the Activity's doors, counted, and said in the log once per incident.

A flood is thousands of refusals in a few seconds: one line each would bury the log (and
cost more than the refusal). So the first refusal of a kind (a door, why, and from whom
when that is known) says it started, and once none of that kind came for ``quiet``
seconds a second line sums it up:

    Activity logins refused: over the limit from 10.0.0.7 (started)
    Activity logins refused: over the limit from 10.0.0.7 ended: 998 refused in 12 s

Incidents open at once are bounded per door and reason (``MAX_APART``): past that, new
sources or people share one incident ("from many"), so a flood from many addresses is a
few lines too. Each refusal is also counted for ``/metrics`` by door (``DoorWatch``:
the bot's metrics, when it has them):

    login     POST /api/token refused (over a limit, not a code, Discord's 429 or refusal)
    instance  a hello whose place was refused (over a limit, an instance Discord does not
              know, a person it does not list, Discord's 429)
    socket    a socket refused or closed at the door (too many without a hello; a person's
              oldest, past their sockets)
    hello     a socket that did not say who it is (silent, not a hello, a bad session)
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

log = logging.getLogger(__name__)

DOORS = ("login", "instance", "socket", "hello")
NAMES = {"login": "Activity logins refused", "instance": "Activity places refused",
         "socket": "Activity sockets refused", "hello": "Activity hellos refused"}
QUIET = 10.0  # seconds without a refusal of its kind that end an incident
MAX_APART = 8  # incidents of one door and reason told apart by source or person, at most


class DoorWatch(Protocol):
    """Told of every refusal (the bot's metrics)."""

    def door_refused(self, door: str) -> None: ...


@dataclass
class _Incident:
    first: float
    last: float
    count: int = 0
    timer: asyncio.TimerHandle | None = None


class Refusals:
    """Counts refusals by door and logs each incident twice: as it starts and as it ends."""

    def __init__(self, watch: DoorWatch | None = None, *, quiet: float = QUIET,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._watch = watch
        self.quiet = quiet
        self._clock = clock
        self._open: dict[tuple[str, str, str], _Incident] = {}
        self.counts: Counter[str] = Counter({door: 0 for door in DOORS})

    def refused(self, door: str, why: str, who: str = "", *,
                level: int = logging.WARNING) -> None:
        """One refusal at ``door``: ``why`` ("over the limit"), ``who`` ("from 10.0.0.7",
        "for user 42"; "" for nobody known). ``level``: the log's, for the start."""
        self.counts[door] += 1
        if self._watch is not None:
            self._watch.door_refused(door)
        now = self._clock()
        key = (door, why, who)
        incident = self._open.get(key)
        if incident is None and who and sum(
                1 for d, w, h in self._open if d == door and w == why and h) >= MAX_APART:
            key = (door, why, "from many")
            incident = self._open.get(key)
        if incident is None:
            incident = self._open[key] = _Incident(now, now)
            log.log(level, "%s: %s (started)", NAMES[door], _what(key))
            self._wake(key, incident, self.quiet)
        incident.count += 1
        incident.last = now

    def _wake(self, key: tuple[str, str, str], incident: _Incident, after: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # (no loop: it ends at close)
        incident.timer = loop.call_later(after, self._look, key)

    def _look(self, key: tuple[str, str, str]) -> None:
        incident = self._open.get(key)
        if incident is None:
            return
        quiet_for = self._clock() - incident.last
        if quiet_for < self.quiet:
            self._wake(key, incident, self.quiet - quiet_for)
            return
        self._end(key, incident)

    def _end(self, key: tuple[str, str, str], incident: _Incident) -> None:
        del self._open[key]
        if incident.timer is not None:
            incident.timer.cancel()
        took = incident.last - incident.first
        log.info("%s: %s ended: %d refused in %s s", NAMES[key[0]], _what(key),
                 incident.count, f"{took:.0f}" if took >= 10 else f"{took:.1f}")

    def open(self) -> int:
        """Incidents going on now."""
        return len(self._open)

    def close(self) -> None:
        """At a stop: every incident still going on is summed up."""
        for key, incident in list(self._open.items()):
            self._end(key, incident)


def _what(key: tuple[str, str, str]) -> str:
    _, why, who = key
    return f"{why} {who}" if who else why
