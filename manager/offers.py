"""What each person may do at a table now: the one answer every screen draws from.

The chat (its lobby buttons, the hand's cards and numbers, the slash commands'
autocomplete and refusals) and the board page (its buttons, the cards a child may tap, the
spaces that glow) ask ``offer_for`` instead of working a rule out themselves, as
chessground is handed its ``dests`` by its host and never knows the rules of chess. The
rules stay with their owners: the lobby's in ``lobby`` (each as a "why not"), the moves in
the engine (the seat's legal actions, grouped by what is tapped first:
``engine.action.grouped``), the sides in ``engine.game.sides_of``, the seat limit in
``lobby.MAX_SEATS``.

A pure function of what a screen holds (the table's view and the acting seat's own
observation), so the manager answers it from its live table (``GameManager.offer``) and
the Activity's hub from what the manager last told it, both the same way.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.action import Action, grouped
from engine.game import sides_of
from engine.observation import Observation
from store import Seat, Status

from . import lobby as rules
from .events import COMPUTER_LEVELS, TableView


@dataclass(frozen=True)
class SeatShown:
    """A seat as every screen shows it."""

    index: int
    kind: str  # "person", "child" (played from ``user_id``'s account), "computer"
    name: str  # the person's or child's name; a computer's is its level (``computer_name``)
    user_id: int | None  # the account that plays it (a child's grown-up); None: a computer
    level: str | None = None  # a computer's
    #: a computer's number, when another computer at the table has its level
    number: int | None = None
    guardian: str | None = None  # a child's grown-up, by name
    side: int = 0  # the side (team) it plays for (in a lobby: as the seats sit now)
    gone: bool = False  # resigned or left
    yours: bool = False  # the person asking plays it now


@dataclass(frozen=True)
class LobbyOffer:
    """What the person may do in a lobby (each False or empty when they may not)."""

    join: bool
    leave: bool
    add_child: bool
    add_computer: tuple[str, ...]  # the levels
    start: bool
    cancel: bool
    remove: tuple[int, ...]  # the seats they may take out (a host, a child's grown-up)


@dataclass(frozen=True)
class MoveGroup:
    """The moves offered together, after one first tap: a card's spaces (Kids), or a
    roll's (Dice: ``first`` is ``roll``). ``spaces``: each space and the move made there."""

    first: str
    spaces: dict[str, Action] = field(default_factory=dict)

    @property
    def takes(self) -> tuple[str, ...]:
        """The spaces where the move takes a chip away (a Dragon, a ten)."""
        return tuple(space for space, action in self.spaces.items() if action.takes)


@dataclass(frozen=True)
class TurnOffer:
    """The moves of the seat the person plays now, on its turn."""

    seat: int
    roll: Action | None  # Dice: the roll to make first
    groups: tuple[MoveGroup, ...]  # by what is tapped first, in the engine's order
    exchanges: tuple[Action, ...]  # Kids: the dead cards that may be exchanged

    @property
    def actions(self) -> list[Action]:
        """Every move offered (the seat's legal actions)."""
        return [*([self.roll] if self.roll else []),
                *(a for g in self.groups for a in g.spaces.values()), *self.exchanges]

    def group(self, first: str) -> MoveGroup | None:
        return next((g for g in self.groups if g.first == first), None)


@dataclass(frozen=True)
class Offer:
    """What one person may do at one table now, and the seats as they are shown."""

    game_id: int
    game: str
    status: Status
    seat_limit: int
    seats: tuple[SeatShown, ...]
    turn: int | None  # the seat to move
    acts_for: int | None  # the seat the person plays now (None: they play none)
    lobby: LobbyOffer | None  # in a lobby
    moves: TurnOffer | None  # on the person's turn
    resign: tuple[int, ...] = ()  # the seats they may give up (a game in play)
    hint: bool = False  # a suggested move may be asked for


NOBODY = 0  # no account: asked as nobody, an offer says what the table itself allows


def offer_for(table: TableView, user_id: int, own: Observation | None = None, *,
              moderator: bool = False) -> Offer:
    """What ``user_id`` may do at ``table`` now. ``own``: the observation of the seat they
    play now (its hand, and its legal actions on its turn), from the game the view is of;
    ``moderator``: they may remove seats as the host may (the transport knows who is)."""
    seat = table.seat_of(user_id)
    playing = table.status is Status.PLAYING
    moves = None
    if (playing and seat is not None and table.turn == seat and own is not None
            and own.get("seat") == seat and own.get("turn") == seat):
        moves = turn_offer(seat, own.get("legal") or [])
    return Offer(
        game_id=table.game_id, game=table.game, status=table.status,
        seat_limit=rules.MAX_SEATS, seats=seats_shown(table, user_id),
        turn=table.turn if playing else None, acts_for=seat,
        lobby=lobby_offer(table, user_id, moderator) if table.status is Status.LOBBY
        else None,
        moves=moves,
        resign=tuple(table.held_seats(user_id)) if playing else (),
        hint=moves is not None)


def lobby_offer(table: TableView, user_id: int, moderator: bool = False) -> LobbyOffer:
    """The lobby's rules (``lobby.why_not_*``), asked for this person."""
    return LobbyOffer(
        join=rules.why_not_join(table, user_id) is None,
        leave=rules.why_not_leave(table, user_id) is None,
        add_child=rules.why_not_add_child(table) is None,
        add_computer=COMPUTER_LEVELS if rules.why_not_add_computer(table, user_id) is None
        else (),
        start=rules.why_not_start(table, user_id) is None,
        cancel=rules.why_not_cancel(table, user_id) is None,
        remove=tuple(s.index for s in table.seats if s.index > 0 and rules.why_not_remove(
            table, user_id, s.index, moderator) is None))


def turn_offer(seat: int, legal: list[str]) -> TurnOffer:
    """A seat's legal actions, grouped as they are tapped."""
    actions = [Action.parse(text) for text in legal]
    roll = next((a for a in actions if a.what == "roll" and a.space is None), None)
    return TurnOffer(
        seat=seat, roll=roll,
        groups=tuple(MoveGroup(first, {str(a.space): a for a in moves})
                     for first, moves in grouped(actions)),
        exchanges=tuple(a for a in actions if a.dead))


def seats_shown(table: TableView, user_id: int) -> tuple[SeatShown, ...]:
    """Each seat: its kind, its name, its side, and whether it is the asker's."""
    sides = sides_of(len(table.seats), teams=bool(table.options.get("teams")))
    shown = []
    for s, number in zip(table.seats, computer_numbers(table.seats), strict=True):
        shown.append(SeatShown(
            index=s.index, kind=kind_of(s), name=s.name, user_id=s.user_id, level=s.level,
            number=number, guardian=s.guardian,
            side=sides[s.index],
            gone=s.left or s.resigned, yours=s.plays_for(user_id)))
    return tuple(shown)


def computer_numbers(seats: Sequence[Seat]) -> list[int | None]:
    """Each seat's number as a computer, when another computer at the table has its level
    (two "Computer (medium)" would be one name for two players): 1, 2, 3 ... over those
    computers in seat order; None for every other seat."""
    levels = Counter(s.level for s in seats if s.is_computer)
    numbers = itertools.count(1)
    return [next(numbers) if s.is_computer and levels[s.level] > 1 else None for s in seats]


def kind_of(seat: Seat) -> str:
    return "computer" if seat.is_computer else "child" if seat.is_child else "person"


__all__ = [
    "NOBODY",
    "LobbyOffer",
    "MoveGroup",
    "Offer",
    "SeatShown",
    "TurnOffer",
    "computer_numbers",
    "offer_for",
]
