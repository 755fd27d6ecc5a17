"""Reading lines on the board: who is how close to a sequence, and where.

Both games are "N in a row" on a small board, so the computer players look at the board the
same way: a line (a bitmask of N spaces in a row, column or diagonal) is *alive* for a side
while no other side's chip is on it; its *count* is how many of its spaces the side already
holds (Kids' free corners count for every side); its *gaps* are the empty spaces still
needed. A line with one gap is a *threat*: the gap is a *winning space*.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..dice_board import HEIGHT as DICE_HEIGHT
from ..dice_board import WIDTH as DICE_WIDTH
from ..kids_board import CORNER_MASK, LINES_THROUGH, SEQUENCE_LENGTH
from ..kids_board import LINES as KIDS_LINES
from ..spaces import bits, lines, lines_through


@dataclass(frozen=True)
class Board:
    """The geometry the players need: lines, lines through each space, wild spaces."""

    length: int
    lines: tuple[int, ...]
    through: tuple[tuple[int, ...], ...]
    wild: int  # spaces that count as every side's chip (Kids' free corners)
    # The lines grouped by direction: (step between spaces, mask of first spaces). Lets
    # ``winning_spaces`` test every line of a direction at once with shifts.
    runs: tuple[tuple[int, int], ...] = field(init=False, repr=False)
    spaces: int = field(init=False, repr=False)  # every space some line goes through

    def __post_init__(self) -> None:
        starts: dict[int, int] = {}
        spaces = 0
        for line in self.lines:
            low = line & -line
            first = low.bit_length() - 1
            rest = line ^ low
            step = (rest & -rest).bit_length() - 1 - first
            if line != sum(1 << (first + i * step) for i in range(self.length)):
                raise ValueError("a line is not evenly spaced")
            starts[step] = starts.get(step, 0) | low
            spaces |= line
        object.__setattr__(self, "runs", tuple(sorted(starts.items())))
        object.__setattr__(self, "spaces", spaces)


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
    """The empty spaces where one more chip of the side holding ``mine`` completes a line.

    Lines of 4 (Kids) are tested a whole direction at once: bit ``s`` of ``h<i>`` says
    that the line starting at ``s`` holds its ``i``-th space (own chip or wild); a line
    holding all its spaces but one, that one empty, wins there. The same answer as
    ``winning_spaces_by_lines``, three times faster: this is the hot path of playouts."""
    own = mine | board.wild
    empty = board.spaces & ~occupied & ~board.wild
    if board.length != 4:
        return winning_spaces_by_lines(board, mine, occupied)
    wins = 0
    for step, starts in board.runs:
        h0 = own & starts
        h1 = (own >> step) & starts
        h2 = (own >> 2 * step) & starts
        h3 = (own >> 3 * step) & starts
        h01 = h0 & h1
        h23 = h2 & h3
        if not (h01 | h23):
            continue  # every line of this direction lacks two of its spaces
        wins |= ((empty & starts & h1 & h23)
                 | ((h0 & (empty >> step) & h23) << step)
                 | ((h01 & (empty >> 2 * step) & h3) << 2 * step)
                 | ((h01 & h2 & (empty >> 3 * step)) << 3 * step))
    return wins


def winning_spaces_by_lines(board: Board, mine: int, occupied: int) -> int:
    """``winning_spaces`` line by line: the plain definition (used for Dice's longer lines,
    and to check the fast one)."""
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


def in_a_row(line: int, own: int) -> bool:
    """Whether the spaces of ``line`` that ``own`` holds are next to each other, with no
    empty or other space between them: only then are they "N in a row" for a reader."""
    held = [i for i, s in enumerate(bits(line)) if own >> s & 1]
    return bool(held) and held[-1] - held[0] + 1 == len(held)


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
