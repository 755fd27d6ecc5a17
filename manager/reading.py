"""Reading the tables this process holds: a table, the seats, what each seat may see, and
what a person may do (``offers``). The read half of the manager's face (``GameManager``
is a ``TableReading``), apart so that each half stays short enough to read at once; it
reads the live tables and changes nothing.
"""

from __future__ import annotations

from engine.observation import Observation
from store import Status

from .errors import refuse
from .events import TableView
from .offers import Offer, offer_for
from .table import Tables


class TableReading:
    """What any screen may ask of the tables, as they stand now."""

    _tables: Tables

    def table_for_channel(self, channel_id: int) -> TableView | None:
        table = self._tables.in_channel(channel_id)
        return table.view() if table is not None else None

    def get(self, game_id: int) -> TableView:
        return self._tables.find(game_id).view()

    def is_active(self, game_id: int) -> bool:
        """True while the game is a lobby or in play."""
        return game_id in self._tables

    def tables(self) -> list[TableView]:
        return [t.view() for t in self._tables.all()]

    def seat_of(self, game_id: int, user_id: int) -> int | None:
        return self._tables.find(game_id).person_seat(user_id)

    def offer(self, game_id: int, user_id: int, *, moderator: bool = False) -> Offer:
        """What ``user_id`` may do at this table now (``offers.offer_for``): every screen
        draws its buttons from it. ``moderator``: they may remove seats as the host may
        (the transport knows who is one)."""
        table = self._tables.find(game_id)
        view = table.view()
        seat = view.seat_of(user_id)
        own = (table.game.observation(seat) if table.game is not None and seat is not None
               and table.status is Status.PLAYING else None)
        return offer_for(view, user_id, own, moderator=moderator)

    def observation_for(self, game_id: int, user_id: int) -> Observation:
        """The user's private view (hand, legal actions); a non-player's is the spectator's."""
        table = self._tables.find(game_id)
        return table.playing().observation(table.person_seat(user_id))

    def seat_observation(self, game_id: int, seat: int) -> Observation:
        """What one seat may see (its hand, and its legal actions on its turn): a grown-up
        holding several seats gets each seat's own view."""
        table = self._tables.find(game_id)
        game = table.playing()
        if not 0 <= seat < len(table.seats):
            raise refuse("no_such_seat", f"There is no seat {seat + 1}.", seat=seat)
        return game.observation(seat)

    def spectator_observation(self, game_id: int) -> Observation:
        return self._tables.find(game_id).playing().observation(None)
