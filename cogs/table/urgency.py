"""How soon someone is looking for a request: the seam to the bot's REST pace.

When more is asked of Discord than the token's share allows (a room of tables opening at
once: lobbies, hellos and hands by DM, first boards), requests wait their turn
(``runtime/budget.py``, ``runtime/fair_pace.py``). What a person is looking for right now
goes first, in two steps: a dealt or changed hand (and the DM channel it needs) before
what nobody waits for, and a move's board, which the whole table watches the channel for,
before that. The Discord side says which, around the request (``urgent(steps)`` is a
context manager); the bot hands in its budget's, tests and a bot without a pace nothing.
Below what nobody waits for is one more step, not the Discord side's: the Activity's
look-ups of where a page runs (-1, ``runtime/fair_pace.BELOW``), which a stranger can cause.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

HAND_WANTED = 1  # a player waits for it to play (a changed hand; the DM channel it needs)
BOARD_WATCHED = 2  # the table is looking at the channel for it (a move's board)


class Urgency(Protocol):
    def __call__(self, steps: int) -> contextlib.AbstractContextManager[None]: ...


def unhurried(steps: int) -> contextlib.AbstractContextManager[None]:
    """No pace to tell (the default)."""
    return contextlib.nullcontext()
