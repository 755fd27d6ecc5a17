"""What both games share: seats and sides, chips as bitboards, turns, resignation, the
history, observations and the JSON round trip.

Two paths, as in python-chess: the checked path (``apply`` with an action string, which
refuses anything illegal with a specific ``IllegalAction``) and the fast path (``moves`` and
``play`` with small ints, no checks, no strings) that random playouts and computer players
search with.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Self

from .action import as_action
from .errors import IllegalAction
from .observation import LastAction, Observation
from .rng import GameRng
from .spaces import bits, space_name


def sides_of(seats: int, *, teams: bool) -> tuple[int, ...]:
    """The side each of ``seats`` seats plays for. Alone, each seat is a side of its own;
    in a team game (two teams) seats sit alternately: 0 and 2 against 1 and 3.

    >>> sides_of(4, teams=True), sides_of(3, teams=False)
    ((0, 1, 0, 1), (0, 1, 2))
    """
    n_sides = 2 if teams else seats
    return tuple(seat % n_sides for seat in range(seats))

class Game(ABC):
    """One game of Sequence for Kids or Sequence Dice. Create it with ``engine.new_game``,
    load a saved one with ``engine.load``."""

    game: ClassVar[str]
    width: ClassVar[int]
    height: ClassVar[int]
    colours: ClassVar[tuple[str, ...]]

    def __init__(self, seats: int, seed: int, options: dict[str, Any], deal: bool = True
                 ) -> None:
        """``deal=False`` leaves out the opening random events (the deal, the roll-off):
        ``from_dict`` fills the state in from a save instead."""
        self.seats = seats
        self.seed = seed
        self.options = dict(options)
        self.side_of: tuple[int, ...] = sides_of(seats, teams=bool(options.get("teams")))
        n_sides = max(self.side_of) + 1
        self.sides: list[list[int]] = [
            [seat for seat in range(seats) if self.side_of[seat] == side]
            for side in range(n_sides)
        ]
        self.chips: list[int] = [0] * n_sides
        self.occupied = 0
        self.rng = GameRng.from_seed(seed)
        self.current: int | None = 0
        self.winner: int | None = None
        self.draw = False
        self.end_reason: str | None = None
        self.win_line = 0
        self.resigned: list[bool] = [False] * seats
        self.history: list[str] = []
        # The last action, kept as small ints on the fast path: (seat, move, removed_side,
        # *extra); ``last_info`` spells it out for observations.
        self.last: tuple[int, ...] | None = None

    # -- public face -------------------------------------------------------------------

    @property
    def current_seat(self) -> int | None:
        """The seat to move, or None when the game is over."""
        return None if self.is_over else self.current

    @property
    def is_over(self) -> bool:
        return self.winner is not None or self.draw

    def legal_actions(self) -> list[str]:
        """Every legal action of the seat to move: exact, sorted, no duplicates."""
        if self.is_over:
            return []
        return sorted({self.move_text(m) for m in self.moves()})

    def apply(self, action: str) -> None:
        """Apply one legal action of the seat to move (case-insensitive text).

        Anything else raises ``IllegalAction`` with a specific code and changes nothing.
        """
        if not isinstance(action, str):
            raise IllegalAction("malformed", "An action is text such as lion@B3 or roll.",
                                action=repr(action))
        if self.is_over:
            raise IllegalAction("game_over", "The game is over.", action=action.strip())
        move = self.parse_move(action)  # raises with the specific reason
        self.play(move)
        self.history.append(self.move_text(move))

    def apply_entry(self, entry: str) -> None:
        """Apply one entry of a history: an action, or ``resign:N``, ``computer:N``, ``skip``.
        Replays (the store's check, the replay animation) go through here."""
        if entry == "skip":
            self.skip()
        elif entry.startswith("resign:"):
            self.resign(_seat_number(entry[7:]))
        elif entry.startswith("computer:"):
            self.hand_over(_seat_number(entry[9:]))
        else:
            self.apply(entry)

    def _check_seated(self, seat: int) -> None:
        """Refuse a seat that cannot leave or be handed over: none, gone, or game over."""
        if self.is_over:
            raise IllegalAction("game_over", "The game is over.")
        if not (isinstance(seat, int) and 0 <= seat < self.seats):
            raise IllegalAction("no_such_seat", f"There is no seat {seat!r}.", seat=str(seat))
        if self.resigned[seat]:
            raise IllegalAction("already_resigned", f"Seat {seat + 1} has already left.",
                                seat=seat)

    def resign(self, seat: int) -> None:
        """A player leaves or resigns, in turn or out of turn. Their chips stay; their seat is
        skipped from now on; when only one side has players left, that side wins."""
        self._check_seated(seat)
        self.resigned[seat] = True
        self.history.append(f"resign:{seat}")
        standing = {self.side_of[s] for s in range(self.seats) if not self.resigned[s]}
        if len(standing) == 1:
            self.winner = standing.pop()
            self.end_reason = "last_side_standing"
            return
        if self.current == seat:
            self.end_turn_without_move(played=False)

    def hand_over(self, seat: int) -> None:
        """From now on a computer player plays ``seat`` (its player left the table).

        Nothing in the game changes; the history entry ``computer:N`` keeps the history a
        full account of the table, so a replay or a restore knows who played what."""
        self._check_seated(seat)
        self.history.append(f"computer:{seat}")

    def skip(self) -> None:
        """The seat to move loses its turn (a turn timer ran out): no card, no chip."""
        if self.is_over:
            raise IllegalAction("game_over", "The game is over.")
        self.history.append("skip")
        self.end_turn_without_move(played=True)

    def hands_changed(self, entry: str, seat: int) -> frozenset[int]:
        """The seats whose private view the history entry ``entry``, made by ``seat``,
        changed: whose hand is not what it was (none in a game without hidden hands). A
        transport tells those seats their new hand, and only those."""
        return frozenset()

    def observation(self, seat: int | None = None) -> Observation:
        """What ``seat`` may know (``None``: a spectator). JSON-safe; never another seat's
        hand nor the deck order."""
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.seats):
            raise ValueError(f"no seat {seat!r}")
        width = self.width
        board: list[int | None] = [None] * (width * self.height)
        for side, mask in enumerate(self.chips):
            for s in bits(mask):
                board[s] = side
        to_move = self.current_seat
        obs: Observation = {
            "game": self.game,
            "options": dict(self.options),
            "width": width,
            "height": self.height,
            "layout": self.layout_labels(),
            "seats": self.seats,
            "seat": seat,
            "sides": [list(s) for s in self.sides],
            "side_of_seat": list(self.side_of),
            "colours": list(self.colours[: len(self.sides)]),
            "board": board,
            "turn": to_move,
            "is_over": self.is_over,
            "winner": self.winner,
            "draw": self.draw,
            "end_reason": self.end_reason,
            "winning_line": [space_name(s, width) for s in bits(self.win_line)],
            "resigned": list(self.resigned),
            "last": self.last_info(),
            "history_length": len(self.history),
            "legal": [],
        }
        self.add_observation(obs, seat)
        obs["legal"] = self.legal_actions() if seat is not None and seat == to_move else []
        return obs

    def to_dict(self) -> dict[str, Any]:
        """Everything, JSON-safe, RNG included: ``from_dict`` gives back an equal game."""
        d: dict[str, Any] = {
            "format": 1,
            "game": self.game,
            "seats": self.seats,
            "seed": self.seed,
            "options": dict(self.options),
            "rng": self.rng.state,
            "chips": list(self.chips),
            "current": self.current,
            "winner": self.winner,
            "draw": self.draw,
            "end_reason": self.end_reason,
            "win_line": self.win_line,
            "resigned": list(self.resigned),
            "history": list(self.history),
            "last": list(self.last) if self.last else None,
        }
        self.add_state(d)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Self:
        """Rebuild a game of this class saved with ``to_dict`` (after a trip through JSON).

        The base class never names its variants (that would be an import cycle): to load a
        save whatever its game, use ``engine.load`` (the registry in ``engine.factory``)."""
        if d.get("game") != cls.game:
            raise ValueError(f"a saved {d.get('game')!r} game is not a {cls.game!r} game")
        game = cls(d["seats"], d["seed"], d["options"], deal=False)
        game.rng = GameRng(d["rng"])
        game.chips = [int(c) for c in d["chips"]]
        game.occupied = 0
        for c in game.chips:
            game.occupied |= c
        game.current = d["current"]
        game.winner = d["winner"]
        game.draw = d["draw"]
        game.end_reason = d["end_reason"]
        game.win_line = d["win_line"]
        game.resigned = list(d["resigned"])
        game.history = list(d["history"])
        game.last = tuple(d["last"]) if d["last"] else None
        game.load_state(d)
        return game

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} seats={self.seats} seed={self.seed} "
                f"options={self.options} moves={len(self.history)}>")

    # -- helpers for the variants ----------------------------------------------------

    def next_active_seat(self, seat: int) -> int:
        for step in range(1, self.seats + 1):
            nxt = (seat + step) % self.seats
            if not self.resigned[nxt]:
                return nxt
        return seat

    def active_seat_count(self) -> int:
        return self.resigned.count(False)

    def space(self, index: int) -> str:
        return space_name(index, self.width)

    # -- what each variant provides ----------------------------------------------------

    @abstractmethod
    def layout_labels(self) -> list[str]:
        """The picture on each space, row by row (Kids: card id or "free"; Dice: number)."""

    def last_info(self) -> LastAction | None:
        """The last action in words: seat, action, the space a chip was placed on, the space a
        chip was taken from and whose it was (for highlights and announcements)."""
        if self.last is None:
            return None
        seat, move, removed_side = self.last[:3]
        action = self.move_text(move)
        act = as_action(action)
        placed = act.places if act is not None else None
        removed = act.space if act is not None and removed_side >= 0 else None
        return {
            "seat": seat,
            "action": action,
            "placed": placed,
            "removed": removed,
            "removed_side": removed_side if removed_side >= 0 else None,
        }

    @abstractmethod
    def moves(self) -> list[int]:
        """Fast path: the legal moves of the seat to move, as ints."""

    @abstractmethod
    def play(self, move: int) -> None:
        """Fast path: apply a move from ``moves()`` without checks or history."""

    @abstractmethod
    def move_text(self, move: int) -> str:
        """The action string of a move int."""

    @abstractmethod
    def parse_move(self, action: str) -> int:
        """The move int of a legal action; raise ``IllegalAction`` saying why otherwise."""

    @abstractmethod
    def end_turn_without_move(self, played: bool) -> None:
        """Pass the turn on without a move: a skipped turn (``played``: it was a turn, in
        which nothing happened) or the mover resigned (not a turn at all)."""

    @abstractmethod
    def add_observation(self, obs: Observation, seat: int | None) -> None: ...

    @abstractmethod
    def add_state(self, d: dict[str, Any]) -> None: ...

    @abstractmethod
    def load_state(self, d: dict[str, Any]) -> None: ...


def _seat_number(text: str) -> int:
    if not text.isdigit():
        raise IllegalAction("malformed", f"{text!r} is not a seat number.", action=text)
    return int(text)
