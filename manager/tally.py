"""What the manager's owners did, counted: for whoever watches the bot from outside.

Plain numbers that only go up, kept by the owner that does the work (``Due`` counts the
chores it claimed, ``SharedDatabase`` the tables it took over from a process that died)
and read by anyone (``runtime/metrics.py`` exports them for Prometheus). Nothing acts on
them, so they are no state of the game: a restart starts them again from zero, as
Prometheus counters expect.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Tally:
    """The manager's counts. Written only by the owners named on each field."""

    #: chores this process claimed because they were due, by what they were (``deadlines``:
    #: "computer", "reminder", "turn_timer", "lobby_timeout", "look"); written by ``Due``
    chores_claimed: Counter[str] = field(default_factory=Counter)
    #: tables this process showed again because the process that changed them died before
    #: it had told everything (several processes on PostgreSQL); written by
    #: ``SharedDatabase``
    taken_over: int = 0
