"""Sequence Dice: roll two dice, cover a space with the total; 10 removes, 11 is wild.

Fast-path moves are ints: ``ROLL``; ``PLACE | space``; ``REPLACE | space`` (take an
opponent's chip off and put your own there); ``REMOVE | space`` (a 10); ``PASS`` (the roll
allows nothing).
"""

from __future__ import annotations

from typing import Any

from .action import Action
from .dice_board import (
    COLOURS,
    FULL_MASK,
    HEIGHT,
    LAYOUT,
    MAX_TURNS,
    NUMBER_SPACES,
    PROTECTED_MASK,
    WIDTH,
)
from .errors import IllegalAction
from .game import Game
from .observation import LastAction, Observation
from .spaces import bits, lines_through, parse_space

PLACE = 0
REPLACE = 1 << 6
REMOVE = 2 << 6
ROLL = 1 << 8
PASS = 1 << 9
SKIP = 1 << 10  # only in ``last``: a turn lost to a timer; never a legal move
_KIND_NAMES = {PLACE: "place", REPLACE: "replace", REMOVE: "remove"}
_KIND_OF = {"place": PLACE, "replace": REPLACE, "remove": REMOVE}


def _malformed(text: str) -> IllegalAction:
    return IllegalAction("malformed", f"{str(text).strip()!r} is not a move: write roll, "
                         "place@B3, replace@B3, remove@B3 or pass.", action=str(text).strip())


class DiceGame(Game):
    game = "dice"
    width = WIDTH
    height = HEIGHT
    colours = COLOURS

    def __init__(self, seats: int, seed: int, options: dict[str, Any], deal: bool = True):
        super().__init__(seats, seed, options)
        self.sequence_length: int = options["sequence_length"]
        self.lines_through = lines_through(WIDTH, HEIGHT, self.sequence_length)
        self.dice: tuple[int, int] | None = None  # this roll, until the seat moves
        self.last_roll: tuple[int, int] | None = None
        self.turns = 0  # completed turns; an extra roll belongs to the same turn
        self.opening_rolls: list[list[list[int]]] = []
        if deal:
            self._roll_off()

    def _roll_off(self) -> None:
        """Everyone rolls both dice; the highest total starts; ties for highest re-roll."""
        contenders = list(range(self.seats))
        while True:
            rolls = [[seat, self.rng.die(), self.rng.die()] for seat in contenders]
            self.opening_rolls.append(rolls)
            best = max(a + b for _, a, b in rolls)
            contenders = [seat for seat, a, b in rolls if a + b == best]
            if len(contenders) == 1:
                self.current = contenders[0]
                return

    # -- fast path -----------------------------------------------------------------------

    def moves(self) -> list[int]:
        if self.winner is not None or self.draw:
            return []
        if self.dice is None:
            return [ROLL]
        assert self.current is not None
        total = self.dice[0] + self.dice[1]
        occ = self.occupied
        opponents = occ & ~self.chips[self.side_of[self.current]]
        if total == 10:
            targets = opponents & ~PROTECTED_MASK
            return [REMOVE | s for s in bits(targets)] if targets else [PASS]
        spaces = FULL_MASK if total == 11 else NUMBER_SPACES[total]
        free = spaces & ~occ
        if free:
            return [PLACE | s for s in bits(free)]
        targets = spaces & opponents
        return [REPLACE | s for s in bits(targets)] if targets else [PASS]

    def roll(self, a: int, b: int) -> None:
        """Fast path for search: set this roll's dice (a chance outcome) directly."""
        self.dice = self.last_roll = (a, b)

    def play(self, move: int) -> None:
        seat = self.current
        assert seat is not None
        rng = self.rng
        if move == ROLL:
            self.dice = self.last_roll = (rng.die(), rng.die())
            self.last = (seat, ROLL, -1, *self.dice)
            return
        dice = self.dice
        assert dice is not None
        total = dice[0] + dice[1]
        victim = -1
        if move != PASS:
            kind = move & ~63
            bit = 1 << (move & 63)
            if kind:  # replace or remove: an opponent's chip comes off first
                chips = self.chips
                victim = 0
                while not chips[victim] & bit:
                    victim += 1
                chips[victim] ^= bit
                self.occupied ^= bit
            if kind != REMOVE:
                side = self.side_of[seat]
                mine = self.chips[side] | bit
                self.chips[side] = mine
                self.occupied |= bit
                won = 0
                for line in self.lines_through[move & 63]:
                    if mine & line == line:
                        won |= line
                if won:
                    self.last = (seat, move, victim, *dice)
                    self.dice = None
                    self.winner = side
                    self.win_line = won
                    self.end_reason = "sequence"
                    return
        self.last = (seat, move, victim, *dice)
        self.dice = None
        # A 2 or a 12 earns another roll, whatever the roll allowed.
        if total != 2 and total != 12:
            self._end_turn(seat)

    def _end_turn(self, seat: int) -> None:
        self.dice = None
        self.turns += 1
        if self.turns >= MAX_TURNS:
            self.draw = True
            self.end_reason = "turn_limit"
            return
        self.current = self.next_active_seat(seat)

    def end_turn_without_move(self, played: bool) -> None:
        assert self.current is not None
        if played:
            self.last = (self.current, SKIP, -1)
        self._end_turn(self.current)

    def last_info(self) -> LastAction | None:
        info = super().last_info()
        if info is not None and self.last is not None:
            info["dice"] = list(self.last[3:5]) if len(self.last) >= 5 else None
        return info

    # -- text ----------------------------------------------------------------------------

    def move_text(self, move: int) -> str:
        if move == ROLL:
            return "roll"
        if move == PASS:
            return "pass"
        if move == SKIP:
            return "skip"
        return Action(_KIND_NAMES[move & ~63], self.space(move & 63)).text

    def parse_move(self, action: str) -> int:
        try:
            act = Action.parse(action)
        except IllegalAction as exc:
            if exc.code == "bad_space":
                raise
            raise _malformed(action) from None  # (a card's name is no Dice move either)
        if act.dead or (act.space is None) != (act.what in ("roll", "pass")):
            raise _malformed(action)
        legal = self.moves()
        if act.what == "roll":
            if ROLL in legal:
                return ROLL
            assert self.dice is not None
            raise IllegalAction("already_rolled", f"You have already rolled "
                                f"{self.dice[0]} and {self.dice[1]}: now use the roll.",
                                dice=list(self.dice))
        if self.dice is None:
            raise IllegalAction("must_roll", "Roll the dice first.")
        total = self.dice[0] + self.dice[1]
        if act.what == "pass":
            if PASS in legal:
                return PASS
            raise IllegalAction("cannot_pass", f"You cannot pass: your {total} can be used.",
                                total=total)
        if act.space is None or act.what not in _KIND_OF:
            raise _malformed(action)
        space = parse_space(act.space, WIDTH, HEIGHT)
        move = _KIND_OF[act.what] | space
        if move in legal:
            return move
        raise self._why_not(_KIND_OF[act.what], space, total)

    def _why_not(self, kind: int, space: int, total: int) -> IllegalAction:
        """The specific reason a well-formed move does not fit this roll and board."""
        name = self.space(space)
        bit = 1 << space
        assert self.current is not None
        mine = self.chips[self.side_of[self.current]]
        number = LAYOUT[space]
        fits = total == 11 or number == total
        if total == 10:
            if kind != REMOVE:
                return IllegalAction("must_remove", "You rolled 10: remove an opponent's chip "
                                     "(not from a 2 or a 12).", total=total)
            if not self.occupied & bit:
                return IllegalAction("no_chip", f"There is no chip on {name} to remove.",
                                     space=name)
            if mine & bit:
                return IllegalAction("own_chip", f"The chip on {name} is your side's own.",
                                     space=name)
            return IllegalAction("protected_space", f"{name} is a {number}: a 10 never "
                                 "removes a chip from a 2 or a 12.", space=name, number=number)
        if kind == REMOVE:
            return IllegalAction("remove_needs_ten", "Only a roll of 10 removes a chip.",
                                 total=total)
        if not fits:
            return IllegalAction("wrong_number", f"{name} is a {number}, but you rolled "
                                 f"{total}.", space=name, number=number, total=total)
        spaces = FULL_MASK if total == 11 else NUMBER_SPACES[total]
        open_left = bool(spaces & ~self.occupied)
        if kind == PLACE:
            return IllegalAction("space_taken", f"{name} already has a chip.", space=name)
        if open_left:
            return IllegalAction("space_still_open", f"There is still an empty {total} "
                                 "space: place your chip there.", total=total)
        if not self.occupied & bit or mine & bit:
            return IllegalAction("own_chip", f"The chip on {name} is your side's own.",
                                 space=name)
        return IllegalAction("illegal", "That move is not allowed now.", space=name)

    # -- observation and state ------------------------------------------------------------

    def layout_labels(self) -> list[str]:
        return [str(n) for n in LAYOUT]

    def add_observation(self, obs: Observation, seat: int | None) -> None:
        obs["sequence_length"] = self.sequence_length
        obs["dice"] = list(self.dice) if self.dice else None
        obs["last_roll"] = list(self.last_roll) if self.last_roll else None
        obs["turns"] = self.turns
        obs["max_turns"] = MAX_TURNS
        obs["opening_rolls"] = [[list(r) for r in rolls] for rolls in self.opening_rolls]

    def add_state(self, d: dict[str, Any]) -> None:
        d["dice"] = list(self.dice) if self.dice else None
        d["last_roll"] = list(self.last_roll) if self.last_roll else None
        d["turns"] = self.turns
        d["opening_rolls"] = [[list(r) for r in rolls] for rolls in self.opening_rolls]

    def load_state(self, d: dict[str, Any]) -> None:
        self.dice = (d["dice"][0], d["dice"][1]) if d["dice"] else None
        self.last_roll = (d["last_roll"][0], d["last_roll"][1]) if d["last_roll"] else None
        self.turns = d["turns"]
        self.opening_rolls = [[list(r) for r in rolls] for rolls in d["opening_rolls"]]

    def copy(self) -> DiceGame:
        """A fast independent copy for search (history not kept)."""
        g = DiceGame.__new__(DiceGame)
        g.__dict__.update(self.__dict__)
        g.chips = list(self.chips)
        g.resigned = list(self.resigned)
        g.history = []
        g.rng = type(self.rng)(self.rng.state)
        return g
