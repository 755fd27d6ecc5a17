"""What the manager tells its listeners, and the read-only views it hands out.

The Discord cog is one listener, the console demo and the tests are others. Every event
carries the ``TableView`` of its lobby or game after the change, so a listener needs no
second call to know the channel, the seats or whose turn it is.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from engine.observation import Observation
from store import Seat, Status

COMPUTER_LEVELS = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Player:
    """A person: their Discord user id and the name to show."""

    user_id: int
    name: str


@dataclass(frozen=True)
class TableView:
    """A lobby or a game, as the transport may see it."""

    game_id: int
    game: str
    options: dict[str, Any]
    status: Status
    guild_id: int | None
    channel_id: int
    host_id: int
    seats: tuple[Seat, ...]
    on_leave: str
    turn: int | None
    ply: int
    lobby_deadline: float | None
    turn_deadline: float | None
    created_at: float
    turn_timer: float | None = None  # seconds per turn in this game (None: no timer)
    family_seats: bool = True  # grown-ups may add children's seats

    def held_seats(self, user_id: int) -> list[int]:
        """The seats ``user_id`` plays now: their own and any child's they hold."""
        return [s.index for s in self.seats if s.plays_for(user_id)]

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` acts for now: of the seats they hold, the one whose turn it
        is, else their own, else a child's; None if they hold none."""
        held = self.held_seats(user_id)
        if not held:
            return None
        if self.turn in held:
            return self.turn
        own = [i for i in held if not self.seats[i].is_child]
        return own[0] if own else held[0]


@dataclass(frozen=True)
class Event:
    table: TableView
    #: when the change was committed (``time.monotonic()``: made right after the commit),
    #: so whoever shows it can tell how long people waited for it; not the game clock
    at: float = field(default_factory=time.monotonic, kw_only=True, compare=False,
                      repr=False)
    #: the transport's own handle on the request that made this change (the click a DM
    #: hand was tapped with), carried through untouched: the manager never looks at it,
    #: so the listener that owns the answer to that request gives it (the hand's owner
    #: changes the tapped message into the new hand) with no word from the click. None
    #: for a change nobody asked for here (a computer's, one told again, another
    #: process's)
    reply_to: object = field(default=None, kw_only=True, compare=False, repr=False)

    @property
    def game_id(self) -> int:
        return self.table.game_id

    @property
    def channel_id(self) -> int:
        return self.table.channel_id

    @property
    def guild_id(self) -> int | None:
        return self.table.guild_id


@dataclass(frozen=True)
class LobbyChanged(Event):
    reason: str  # created, joined, left, computer_added, seat_removed


@dataclass(frozen=True)
class LobbyCancelled(Event):
    reason: str  # host, idle, host_left


@dataclass(frozen=True)
class GameStarted(Event):
    observation: Observation  # the spectator's view


@dataclass(frozen=True)
class Moved(Event):
    seat: int
    action: str
    by: str  # "player", "computer", "auto" (a forced pass), "timer"
    user_id: int | None
    observation: Observation  # the spectator's view after the move
    placed: str | None
    removed: str | None
    ply: int  # index of this action in the game's history
    #: where a person's move came from, as the transport said when it submitted it
    #: (the Discord side: "dm", "channel", "command"); None for the others. The manager
    #: only passes it on, for whoever counts moves.
    via: str | None = field(default=None, kw_only=True)
    #: the seat to move after this one can only pass, and that pass follows at once (the
    #: next ``Moved``): this moment is gone before anyone could act on it, so a transport
    #: shows it together with the pass rather than as a turn of its own
    passes_next: bool = field(default=False, kw_only=True)
    #: its commit got no answer (the connection broke after COMMIT was sent) and the store,
    #: asked afterwards by the move's request id, had kept it: told late, but true
    kept_after_doubt: bool = field(default=False, kw_only=True)


@dataclass(frozen=True)
class HandChanged(Event):
    seat: int
    user_id: int
    observation: Observation  # that seat's private view
    #: the move that changed it was kept after its commit's answer was lost (``Moved``'s)
    kept_after_doubt: bool = field(default=False, kw_only=True)


@dataclass(frozen=True)
class TurnStarted(Event):
    seat: int
    user_id: int
    observation: Observation  # that seat's private view, with "legal"


@dataclass(frozen=True)
class SeatChanged(Event):
    seat: int
    user_id: int | None
    change: str  # "resigned", "left", "computer", "freed"


@dataclass(frozen=True)
class TurnReminder(Event):
    seat: int
    user_id: int
    deadline: float


@dataclass(frozen=True)
class TurnTimedOut(Event):
    seat: int
    user_id: int
    outcome: str  # "computer_moved", "skipped", "seat_freed"


@dataclass(frozen=True)
class GameOver(Event):
    winner: int | None  # side index
    draw: bool
    reason: str | None  # the engine's end_reason, or "ended"
    winning_seats: tuple[int, ...]
    observation: Observation
    ended_by: int | None = None


@dataclass(frozen=True)
class ShowAgain(Event):
    """Another process changed this table and died before it had told everything: show
    the table again, posting only what its channel is missing (as after a restart). For a
    game that ended with its final board owed, ``ending`` is how it ended."""

    ending: GameOver | None = None


@dataclass(frozen=True)
class Followed(Event):
    """Another process (several on one PostgreSQL) changed this table, and this process's
    copy was just brought to it (``table``: as stored now). Its own events were told in
    the process that made the change; this is for listeners that show a table live to
    people connected here (the Activity), which read it again. A game that ended there
    comes with how it ended (``ending``); a new lobby or game made there, when it is first
    held here. The Discord side ignores it: the other process posts what the change
    needs."""

    ending: GameOver | None = None


@runtime_checkable
class Listener(Protocol):
    """Anything that wants to hear what happened. Raising is logged, never fatal."""

    async def on_event(self, event: Event) -> None: ...


@runtime_checkable
class Hearer(Protocol):
    """A listener told each event the moment its change is committed, before the others
    are told it in order: one that only notes it and pushes it on, and never waits (the
    Activity's hub, whose pages then never wait for a board being posted to Discord). Told
    with its game's lock held, so it changes nothing: it may read what the manager holds,
    never call what changes a table. Raising is logged, never fatal."""

    def heard(self, event: Event) -> None: ...
