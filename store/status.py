"""Where a table is in its life: the one definition of each status and of the open ones.

A table is a lobby, then a game in play, then finished (a result) or cancelled (no
result: a lobby given up, a game ended by its host). The store keeps the status as text
(``games.status``); the manager, the Discord side and the runtime read it through these
names only, so a status is spelled once.

``Status`` is a ``StrEnum``: a member equals its text, so a row read from either database
compares as it is, and ``Status(text)`` turns a stored value back into a member.

>>> Status("lobby") is Status.LOBBY
True
>>> Status.PLAYING.is_open, Status.FINISHED.is_open
(True, False)
>>> all(f"'{s}'" in OPEN_SQL for s in OPEN)
True
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    LOBBY = "lobby"  # seats being taken; no game yet
    PLAYING = "playing"  # dealt (Kids) or rolled off (Dice): moves are made
    FINISHED = "finished"  # won, drawn, or the last side standing: a result is kept
    CANCELLED = "cancelled"  # a lobby given up or a game ended by its host: no result

    @property
    def is_open(self) -> bool:
        """Still going: a lobby or a game in play (what the bot restores at start)."""
        return self in OPEN


#: The statuses of a table still going, in the order a table passes through them.
OPEN: tuple[Status, ...] = (Status.LOBBY, Status.PLAYING)

#: ``OPEN`` as an SQL list, for ``status IN {OPEN_SQL}`` in the store's queries.
OPEN_SQL = "(" + ", ".join(f"'{s.value}'" for s in OPEN) + ")"
