"""A seat at a table: one frozen type for the store, the manager and its listeners.

Its own module so that the store (which saves seats) and the events (which show them)
both import it without importing each other. Frozen: the manager replaces a seat to
change it, so a view handed to a listener never changes under it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Seat:
    """One seat: a person (``user_id``), a computer player (``level``), or a child who
    plays from a grown-up's account (a family seat: ``user_id`` is the grown-up's account,
    ``name`` the child's, ``guardian`` the grown-up's name)."""

    index: int
    user_id: int | None
    name: str
    level: str | None = None
    left: bool = False
    resigned: bool = False
    absences: int = 0
    guardian: str | None = None

    @property
    def is_computer(self) -> bool:
        return self.level is not None

    @property
    def is_child(self) -> bool:
        return self.guardian is not None

    def plays_for(self, user_id: int) -> bool:
        """Whether ``user_id``'s clicks act for this seat now: their own seat or a child's
        they hold (not once a computer took it over, or after they resigned)."""
        return (self.user_id == user_id and self.level is None and not self.left
                and not self.resigned)
