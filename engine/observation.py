"""What a seat may know of a game: the shape of ``Game.observation(seat)``.

Observations are what computer players, pictures, the manager's events and the Discord
layer read, always by key, and they are JSON-safe. This TypedDict names every key, its
type, and which game adds it, so a reader (and mypy) need not guess. Keys every game gives
are required; a game's own keys are ``NotRequired`` (present for that game only); ``hand``
and ``dead`` are there only in a player's own view (a Kids seat, not a spectator).
"""

# No ``from __future__ import annotations``: TypedDict reads NotRequired at run time, so
# ``Observation.__required_keys__`` stays true.
from typing import Any, NotRequired, TypedDict


class LastAction(TypedDict):
    """The last action in words (``Observation["last"]``), for highlights and lines."""

    seat: int
    action: str
    placed: str | None  # the space a chip was placed on
    removed: str | None  # the space a chip was taken from
    removed_side: int | None  # whose chip that was
    card: NotRequired[str | None]  # Kids: the card played or exchanged
    dice: NotRequired[list[int] | None]  # Dice: the roll the move used


class Observation(TypedDict):
    """``Game.observation(seat)`` (``seat`` None: a spectator's view)."""

    game: str  # "kids" or "dice"
    options: dict[str, Any]
    width: int
    height: int
    layout: list[str]  # the picture on each space, row by row
    seats: int
    seat: int | None  # whose view this is; None for a spectator
    sides: list[list[int]]
    side_of_seat: list[int]
    colours: list[str]  # one per side
    board: list[int | None]  # the side whose chip is on each space
    turn: int | None  # the seat to move, None when the game is over
    is_over: bool
    winner: int | None  # a side
    draw: bool
    end_reason: str | None
    winning_line: list[str]
    resigned: list[bool]
    last: LastAction | None
    history_length: int
    legal: list[str]  # the viewing seat's legal actions when it is to move, else []
    # Sequence for Kids
    level: NotRequired[str]
    hand_size: NotRequired[int]
    deck_size: NotRequired[int]
    hand_sizes: NotRequired[list[int]]
    discards: NotRequired[list[list[str]]]
    discard_tops: NotRequired[list[str | None]]
    exchanges_left: NotRequired[int]
    idle_turns: NotRequired[int]  # forced passes in a row (the draw rule)
    hand: NotRequired[list[str]]  # a player's own view only
    dead: NotRequired[list[str]]  # a player's own view only
    # Sequence Dice
    sequence_length: NotRequired[int]
    dice: NotRequired[list[int] | None]  # this turn's roll, until the seat moves
    last_roll: NotRequired[list[int] | None]
    turns: NotRequired[int]
    max_turns: NotRequired[int]
    opening_rolls: NotRequired[list[list[list[int]]]]


__all__ = ["LastAction", "Observation"]
