"""Reading lines on the board: who is how close to a sequence, and where.

Both games are "N in a row" on a small board, so the computer players look at the board the
same way: a line (a bitmask of N spaces in a row, column or diagonal) is *alive* for a side
while no other side's chip is on it; its *count* is how many of its spaces the side already
holds (Kids' free corners count for every side); its *gaps* are the empty spaces still
needed. A line with one gap is a *threat*: the gap is a *winning space*.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..dice_board import HEIGHT as DICE_HEIGHT
from ..dice_board import WIDTH as DICE_WIDTH
from ..kids_board import CORNER_MASK, LINES_THROUGH, SEQUENCE_LENGTH
from ..kids_board import LINES as KIDS_LINES
from ..spaces import lines, lines_through


@dataclass(frozen=True)
class Board:
    """The geometry the players need: lines, lines through each space, wild spaces."""

    length: int
    lines: tuple[int, ...]
    through: tuple[tuple[int, ...], ...]
    wild: int  # spaces that count as every side's chip (Kids' free corners)


KIDS_BOARD = Board(SEQUENCE_LENGTH, KIDS_LINES, LINES_THROUGH, CORNER_MASK)
_DICE_BOARDS = {
    n: Board(n, lines(DICE_WIDTH, DICE_HEIGHT, n), lines_through(DICE_WIDTH, DICE_HEIGHT, n), 0)
    for n in (5, 6)
}


def dice_board(sequence_length: int) -> Board:
    return _DICE_BOARDS[sequence_length]


def popcount(mask: int) -> int:
    return mask.bit_count()


def winning_spaces(board: Board, mine: int, occupied: int) -> int:
    """The empty spaces where one more chip of the side holding ``mine`` completes a line."""
    own = mine | board.wild
    blocked = occupied & ~mine
    wins = 0
    for line in board.lines:
        if line & blocked:
            continue
        gap = line & ~own
        if gap and not gap & (gap - 1):
            wins |= gap
    return wins


def best_line_through(board: Board, space: int, mine: int, occupied: int) -> tuple[int, int]:
    """The longest alive line of ``mine`` through ``space``: (count, line mask).

    ``space`` itself counts if ``mine`` holds it. Count 0 when no line through it is alive.
    """
    own = mine | board.wild
    blocked = occupied & ~mine
    best, best_line = 0, 0
    for line in board.through[space]:
        if line & blocked:
            continue
        n = popcount(line & own)
        if n > best:
            best, best_line = n, line
    return best, best_line


def potential(board: Board, mine: int, occupied: int, weights: tuple[float, ...]) -> float:
    """How promising a side's position is: the sum over its alive lines of
    ``weights[count]`` (count includes wild spaces)."""
    own = mine | board.wild
    blocked = occupied & ~mine
    total = 0.0
    for line in board.lines:
        if not line & blocked:
            total += weights[popcount(line & own)]
    return total


def space_value(board: Board, space: int, mine: int, occupied: int,
                weights: tuple[float, ...]) -> float:
    """What one more chip of ``mine`` on the empty ``space`` adds to its alive lines."""
    own = mine | board.wild
    blocked = occupied & ~mine
    gain = 0.0
    for line in board.through[space]:
        if not line & blocked:
            n = popcount(line & own)
            gain += weights[n + 1] - weights[n]
    return gain


def block_value(board: Board, space: int, theirs: int, occupied: int,
                weights: tuple[float, ...]) -> float:
    """What a side holding ``theirs`` loses when someone else takes the empty ``space``:
    every alive line of theirs through it dies."""
    own = theirs | board.wild
    blocked = occupied & ~theirs
    loss = 0.0
    for line in board.through[space]:
        if not line & blocked:
            loss += weights[popcount(line & own)]
    return loss


def chip_value(board: Board, space: int, theirs: int, occupied: int,
               weights: tuple[float, ...]) -> float:
    """What a side loses when its chip on ``space`` is taken off (a Dragon, a 10)."""
    own = theirs | board.wild
    blocked = occupied & ~theirs
    loss = 0.0
    for line in board.through[space]:
        if not line & blocked:
            n = popcount(line & own)
            loss += weights[n] - weights[n - 1]
    return loss
