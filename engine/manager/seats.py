"""A seat at a table: one frozen type for the store, the manager and its listeners.

Its own module so that the store (which saves seats) and the events (which show them)
both import it without importing each other. Frozen: the manager replaces a seat to
change it, so a view handed to a listener never changes under it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Seat:
    """One seat: a person (``user_id``) or a computer player (``level``)."""

    index: int
    user_id: int | None
    name: str
    level: str | None = None
    left: bool = False
    resigned: bool = False
    absences: int = 0

    @property
    def is_computer(self) -> bool:
        return self.level is not None
