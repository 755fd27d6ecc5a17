"""How the computer players judge a Sequence Dice position, and the hard player's search.

Medium plays the move after which its lines minus everyone else's are worth most (so it
completes its own lines, blocks others' and spends a 10 on the most dangerous chip).

Hard looks one roll further (expectimax): for each of its candidate moves it averages,
over the 21 distinct rolls of the next player (weighted 1/36 or 2/36), the position after
that player's best reply by the same measure; a 2 or a 12 makes the next player itself.
It is deterministic: there is nothing hidden in Dice, and the dice are averaged, not
sampled.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..dice import PASS, REMOVE, ROLL, DiceGame
from ..dice_board import LAYOUT
from .lines import Board, dice_board, potential, space_value, winning_spaces

# 21 distinct rolls of two dice and their chance out of 36.
OUTCOMES: tuple[tuple[int, int, float], ...] = tuple(
    (a, b, (1.0 if a == b else 2.0) / 36.0) for a in range(1, 7) for b in range(a, 7)
)
CANDIDATES = 8
WIN = 1_000_000.0


def weights_for(length: int) -> tuple[float, ...]:
    """Alive-line value by count: each chip triples it; a full line is a win."""
    return (*(3.0 ** k - 1.0 for k in range(length)), WIN, WIN)


def _board(game: DiceGame) -> tuple[Board, tuple[float, ...]]:
    n = game.sequence_length
    return dice_board(n), weights_for(n)


# How likely one roll covers a space: its own total or an 11 (wild).
_WAYS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 6, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
FILL_CHANCE: tuple[float, ...] = tuple((_WAYS[n] + _WAYS[11]) / 36.0 for n in LAYOUT)
THREAT = 3.0  # a line one chip short: times its value, per unit of chance of covering the gap


def _threats(board: Board, chips: int, occupied: int) -> float:
    """The chance-weighted winning spaces of a side: a gap on a 7 beats a gap on a 12."""
    wins = winning_spaces(board, chips, occupied)
    total = 0.0
    while wins:
        low = wins & -wins
        total += FILL_CHANCE[low.bit_length() - 1]
        wins ^= low
    return total


def evaluate(game: DiceGame, side: int) -> float:
    """``side``'s lines minus the strongest opponent's (a win is worth ``WIN``)."""
    if game.winner is not None:
        return WIN if game.winner == side else -WIN
    if game.draw:
        return 0.0
    board, weights = _board(game)
    occ = game.occupied
    mine = 0.0
    theirs = 0.0
    threat = THREAT * weights[board.length - 1]
    for other, chips in enumerate(game.chips):
        value = potential(board, chips, occ, weights) + threat * _threats(board, chips, occ)
        if other == side:
            mine = value
        else:
            theirs = max(theirs, value)
    # Defence counts a little more than attack: a line one roll from done wins next turn.
    return mine - 1.2 * theirs


def after(game: DiceGame, move: int) -> DiceGame:
    g = game.copy()
    g.play(move)
    return g


def greedy_move(game: DiceGame) -> int:
    """The medium player's move: the best position right after the move."""
    moves = game.moves()
    if len(moves) == 1:
        return moves[0]
    seat = game.current
    assert seat is not None
    side = game.side_of[seat]
    return max(moves, key=lambda m: (evaluate(after(game, m), side), -m))


def attack_move(game: DiceGame, rng: random.Random, noise: float = 1.0) -> int:
    """The easy player's move: the space that helps its own lines most, judged roughly
    (each move's value is scaled by a random factor up to ``1 + noise``); no defence."""
    moves = game.moves()
    seat = game.current
    assert seat is not None
    side = game.side_of[seat]
    board, weights = _board(game)
    mine = game.chips[side]
    occ = game.occupied

    def value(move: int) -> float:
        if move in (PASS, ROLL) or move & REMOVE:
            return 0.0
        space = move & 63
        return space_value(board, space, mine, occ & ~(1 << space), weights)

    rough = {m: value(m) * (1.0 + noise * rng.random()) for m in moves}
    return max(moves, key=lambda m: (rough[m], -m))


@dataclass
class DiceSearchResult:
    move: int
    evaluations: int
    values: dict[int, float]


def expectimax(game: DiceGame, time_limit: float | None = None,
               candidates: int = CANDIDATES) -> DiceSearchResult:
    """Hard: the move with the best average position after the next player's roll and
    greedy reply (see the module docstring)."""
    moves = game.moves()
    if len(moves) == 1:
        return DiceSearchResult(moves[0], 0, {})
    seat = game.current
    assert seat is not None
    side = game.side_of[seat]
    evaluations = 0
    children = {m: after(game, m) for m in moves}
    first = {m: evaluate(g, side) for m, g in children.items()}
    evaluations += len(moves)
    ranked = sorted(moves, key=lambda m: (-first[m], m))
    if first[ranked[0]] >= WIN:
        return DiceSearchResult(ranked[0], evaluations, {ranked[0]: WIN})
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    values: dict[int, float] = {}
    for move in ranked[:candidates]:
        child = children[move]
        if child.winner is not None or child.draw:
            values[move] = first[move]
            continue
        total = 0.0
        for a, b, p in OUTCOMES:
            g = child.copy()
            g.roll(a, b)
            replies = g.moves()
            mover = g.side_of[g.current] if g.current is not None else side
            best_for_mover = None
            best_value = 0.0
            for reply in replies:
                h = g.copy()
                h.play(reply)
                v = evaluate(h, mover)
                evaluations += 1
                if best_for_mover is None or v > best_for_mover:
                    best_for_mover = v
                    best_value = v if mover == side else evaluate(h, side)
            total += p * best_value
        values[move] = total
        if deadline is not None and time.perf_counter() > deadline:
            break
    chosen = max(values, key=lambda m: (values[m], -m))
    return DiceSearchResult(chosen, evaluations, values)
