"""A lobby or a game in play as this process holds it, and the registry of them.

``Table`` is what the store keeps of a table, nothing else: what a process adds to it
(the game's lock, the events still to announce, the computer players thinking for it)
lives with the owner of each (``sharing``, ``outbox``, ``computer``), so bringing a table
up to date from the store is replacing it, never copying fields one by one.

``Tables`` finds tables by game id and by channel. It is the only writer of the two maps;
a table leaves them when it closes (``close``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from engine.game import Game
from store import Seat, Status

from .errors import refuse
from .events import GameOver, TableView
from .house_rules import HouseRules


@dataclass(eq=False)
class Table:
    """A lobby or a game, as stored (never handed out: listeners get ``view()``)."""

    id: int
    kind: str
    options: dict[str, Any]
    status: Status
    guild_id: int | None
    channel_id: int
    host_id: int
    seats: list[Seat]
    on_leave: str
    created_at: float
    rules: HouseRules  # the turn timer and what it does: the server's, and the host's own
    game: Game | None = None
    lobby_deadline: float | None = None
    turn_deadline: float | None = None
    turn_reminded: bool = False
    family_seats: bool = True

    @property
    def active(self) -> bool:
        return self.status.is_open

    def view(self) -> TableView:
        game = self.game
        return TableView(
            game_id=self.id,
            game=self.kind,
            options=dict(self.options),
            status=self.status,
            guild_id=self.guild_id,
            channel_id=self.channel_id,
            host_id=self.host_id,
            seats=tuple(self.seats),
            on_leave=self.on_leave,
            turn=game.current_seat if game is not None else None,
            ply=len(game.history) if game is not None else 0,
            lobby_deadline=self.lobby_deadline,
            turn_deadline=self.turn_deadline,
            created_at=self.created_at,
            turn_timer=self.rules.turn_timer,
            family_seats=self.family_seats,
        )

    def playing(self) -> Game:
        """The game, refusing a lobby (``game_not_started``) and an ended table."""
        if self.status is Status.LOBBY or self.game is None:
            raise refuse("game_not_started", "The game has not started yet.")
        if self.status is not Status.PLAYING:
            raise refuse("game_over", "The game is over.")
        return self.game

    def person_seat(self, user_id: int) -> int | None:
        """The seat a person acts for now (not left, not handed to a computer): of the
        seats they hold (their own and their children's), the one whose turn it is."""
        return self.view().seat_of(user_id)

    def held_seats(self, user_id: int) -> list[int]:
        return [s.index for s in self.seats if s.plays_for(user_id)]

    def change_seat(self, seat: int, **changes: Any) -> Seat:
        """Replace a seat with a changed copy (seats are frozen: a view already handed out
        keeps what it showed)."""
        new = replace(self.seats[seat], **changes)
        self.seats[seat] = new
        return new

    def renumber(self) -> None:
        """Seats numbered from 0 again after one left a lobby."""
        self.seats[:] = [replace(s, index=i) for i, s in enumerate(self.seats)]

    def is_person(self, seat: int | None) -> bool:
        return seat is not None and self.seats[seat].level is None

    @property
    def computer_to_move(self) -> bool:
        """A computer seat is to move in a game still going."""
        game = self.game
        return (self.status is Status.PLAYING and game is not None and not game.is_over
                and game.current_seat is not None and not self.is_person(game.current_seat))

    @property
    def must_pass(self) -> bool:
        """The seat to move can only pass (Kids: only dead cards, and no exchange left this
        turn): the pass is made for it at once, under the same lock
        (``Steps.settle_forced``), so nobody is ever asked to make it, and the moment
        before it is never a turn to show."""
        game = self.game
        return (self.status is Status.PLAYING and game is not None and not game.is_over
                and game.legal_actions() == ["pass"])

    def ending(self) -> GameOver:
        """How the game ended, as its ``GameOver`` tells it (the game is over)."""
        game = self.game
        assert game is not None
        winning = tuple(game.sides[game.winner]) if game.winner is not None else ()
        return GameOver(self.view(), game.winner, game.draw, game.end_reason, winning,
                        game.observation(None))


class Tables:
    """Every active table this process holds, by game id and by channel."""

    def __init__(self) -> None:
        self._by_id: dict[int, Table] = {}
        self._by_channel: dict[int, int] = {}
        # a channel holds one table: making a lobby, and moving a game to a thread, look at
        # the channel map and change it one at a time
        self.channel_lock = asyncio.Lock()

    def __contains__(self, game_id: int) -> bool:
        return game_id in self._by_id

    def __len__(self) -> int:
        return len(self._by_id)

    def get(self, game_id: int) -> Table | None:
        return self._by_id.get(game_id)

    def find(self, game_id: int) -> Table:
        """The table, or the refusal ``no_such_game``."""
        table = self._by_id.get(game_id)
        if table is None:
            raise refuse("no_such_game", f"There is no game {game_id} in play.",
                         game_id=game_id)
        return table

    def in_channel(self, channel_id: int) -> Table | None:
        game_id = self._by_channel.get(channel_id)
        return self._by_id[game_id] if game_id is not None else None

    def check_channel_free(self, channel_id: int) -> None:
        game_id = self._by_channel.get(channel_id)
        if game_id is not None:
            raise refuse("channel_busy", "This channel already has a lobby or a game.",
                         game_id=game_id)

    def all(self) -> list[Table]:
        return list(self._by_id.values())

    def ids(self) -> list[int]:
        return list(self._by_id)

    def put(self, table: Table) -> None:
        """Hold ``table`` (new, or a fresher copy of one held: the copy replaces it)."""
        old = self._by_id.get(table.id)
        if old is not None and self._by_channel.get(old.channel_id) == old.id:
            del self._by_channel[old.channel_id]
        self._by_id[table.id] = table
        self._by_channel[table.channel_id] = table.id

    def close(self, table: Table, status: Status) -> None:
        """The table ended (``finished``, ``cancelled``): it leaves the maps."""
        table.status = status
        table.lobby_deadline = table.turn_deadline = None
        if self._by_id.get(table.id) is table:
            del self._by_id[table.id]
        if self._by_channel.get(table.channel_id) == table.id:
            del self._by_channel[table.channel_id]

    def move(self, table: Table, channel_id: int) -> None:
        """The table goes on in another channel (a thread opened for it)."""
        if self._by_channel.get(table.channel_id) == table.id:
            del self._by_channel[table.channel_id]
        table.channel_id = channel_id
        self._by_channel[channel_id] = table.id
