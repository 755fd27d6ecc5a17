"""How the computer players judge a Sequence for Kids move without searching.

Used three ways: the medium player plays the best-scored move; the easy player plays
``child_move``; the hard player's playouts use the cheap ``playout_move`` and its search
keeps only the best-scored moves at the root.
"""

from __future__ import annotations

import random

from ..kids import DEAD, PASS, KidsGame
from ..kids_board import ANIMAL_SPACES, CORNER_MASK, DRAGON, HEIGHT, UNICORN, WIDTH
from .lines import (
    KIDS_BOARD,
    best_line_through,
    block_value,
    chip_value,
    popcount,
    potential,
    space_value,
    winning_spaces,
)

# What an alive line is worth by how many of its 4 spaces a side holds (corners count).
WEIGHTS: tuple[float, ...] = (0.0, 1.0, 4.0, 16.0, 100.0, 100.0)
DEFENCE = 0.8  # an opponent's line lost is worth this much of a line of one's own
BLOCK_BONUS = 200.0  # per opponent winning space taken away
WIN_SCORE = 10_000.0
# A Unicorn or a Dragon in the hand is worth keeping for the moment it matters.
UNICORN_KEEP = 20.0
DRAGON_KEEP = 12.0
SETUP_BONUS = 40.0  # a winning space made for a card already in the hand
FORK_BONUS = 15.0  # per winning space beyond the first: harder to block them all


# Each space's neighbours (across, down, and slanting): a child sees "next to my chips",
# not lines.
NEIGHBOURS: tuple[int, ...] = tuple(
    sum(1 << (r + dr) * WIDTH + c + dc
        for dr in (-1, 0, 1) for dc in (-1, 0, 1)
        if (dr or dc) and 0 <= r + dr < HEIGHT and 0 <= c + dc < WIDTH)
    for r, c in (divmod(s, WIDTH) for s in range(WIDTH * HEIGHT))
)
CHILD_SEES_WIN = 0.85  # how often the easy player notices that a move wins
CHILD_NOISE = 1.5  # its whims, in "chips next to mine" (so a whim can beat one neighbour)


def is_placement(move: int) -> bool:
    return move < DEAD and move >> 6 != DRAGON


def winning_moves(game: KidsGame, moves: list[int]) -> list[int]:
    """The placements among ``moves`` that complete a sequence for the seat to move."""
    seat = game.current
    assert seat is not None
    wins = winning_spaces(KIDS_BOARD, game.chips[game.side_of[seat]], game.occupied)
    return [m for m in moves if is_placement(m) and wins >> (m & 63) & 1] if wins else []


def opponents_wins(game: KidsGame, side: int, occupied: int, chips: list[int]) -> int:
    """Every empty space where some opponent of ``side`` would complete a sequence."""
    danger = 0
    for other, theirs in enumerate(chips):
        if other != side and theirs:
            danger |= winning_spaces(KIDS_BOARD, theirs, occupied)
    return danger


def score_moves(game: KidsGame, moves: list[int]) -> dict[int, float]:
    """The medium player's score of each move of the seat to move (higher is better)."""
    seat = game.current
    assert seat is not None
    side = game.side_of[seat]
    chips = game.chips
    mine = chips[side]
    occ = game.occupied
    my_wins = winning_spaces(KIDS_BOARD, mine, occ)
    hand = game.hands[seat]
    danger_before = popcount(opponents_wins(game, side, occ, chips))
    scores: dict[int, float] = {}
    for move in moves:
        if move >= DEAD:
            # A dead card exchanged is a free new card; passing is all that is left.
            scores[move] = 50.0 if move != PASS else 0.0
            continue
        card, space = move >> 6, move & 63
        bit = 1 << space
        if card == DRAGON:
            victim = next(o for o, c in enumerate(chips) if c & bit)
            after = list(chips)
            after[victim] ^= bit
            danger_after = popcount(opponents_wins(game, side, occ ^ bit, after))
            value = DEFENCE * chip_value(KIDS_BOARD, space, chips[victim], occ, WEIGHTS)
            value += BLOCK_BONUS * (danger_before - danger_after) - DRAGON_KEEP
        else:
            if my_wins & bit:
                scores[move] = WIN_SCORE - (1.0 if card == UNICORN else 0.0)
                continue
            after = list(chips)
            after[side] |= bit
            danger_after = popcount(opponents_wins(game, side, occ | bit, after))
            value = space_value(KIDS_BOARD, space, mine, occ, WEIGHTS)
            # A new winning space that a card still in the hand fills wins next turn
            # unless it is blocked: worth much more than its line count says.
            new_wins = winning_spaces(KIDS_BOARD, mine | bit, occ | bit) & ~my_wins
            if new_wins:
                rest = list(hand)
                rest.remove(card)
                if any(c == UNICORN or (c < UNICORN and ANIMAL_SPACES[c] & new_wins)
                       for c in rest):
                    value += SETUP_BONUS
                value += FORK_BONUS * (popcount(new_wins | my_wins) - 1)
            for other, theirs in enumerate(chips):
                if other != side and theirs:
                    value += DEFENCE * block_value(KIDS_BOARD, space, theirs, occ, WEIGHTS)
            value += BLOCK_BONUS * (danger_before - danger_after)
            if card == UNICORN:
                value -= UNICORN_KEEP
        scores[move] = value
    return scores


def evaluate(game: KidsGame, side: int) -> float:
    """A static guess of how well ``side`` stands, as a probability of winning."""
    if game.winner is not None:
        return 1.0 if game.winner == side else 0.0
    if game.draw:
        return 0.5
    occ = game.occupied
    mine = potential(KIDS_BOARD, game.chips[side], occ, WEIGHTS)
    theirs = max(
        (potential(KIDS_BOARD, c, occ, WEIGHTS) for o, c in enumerate(game.chips) if o != side),
        default=0.0,
    )
    diff = (mine - theirs) / 40.0
    return 0.5 + 0.5 * diff / (1.0 + abs(diff))


def playout_move(game: KidsGame, rng: random.Random) -> int:
    """A quick, sensible move for random playouts: win, exchange, block, else build."""
    moves = game.moves()
    if len(moves) == 1:
        return moves[0]
    seat = game.current
    assert seat is not None
    side = game.side_of[seat]
    chips = game.chips
    mine = chips[side]
    occ = game.occupied
    my_wins = winning_spaces(KIDS_BOARD, mine, occ)
    if my_wins:
        for move in moves:
            if is_placement(move) and my_wins >> (move & 63) & 1:
                return move
    for move in moves:
        if move >= DEAD and move != PASS:
            return move
    danger = opponents_wins(game, side, occ, chips)
    if danger:
        blocks = [m for m in moves if is_placement(m) and danger >> (m & 63) & 1]
        if blocks:
            return min(blocks)  # animals sort before the Unicorn: keep the Unicorn
        for move in moves:
            if move >> 6 == DRAGON and move < DEAD:
                space = move & 63
                victim = next(o for o, c in enumerate(chips) if c >> space & 1)
                if best_line_through(KIDS_BOARD, space, chips[victim], occ)[0] >= 3:
                    return move
    best, best_value = moves[0], -1.0
    # ``space_value`` plus ``DEFENCE`` times each opponent's ``block_value``, inlined (the
    # same sums in the same order): this loop is most of a playout's time.
    weights = WEIGHTS
    through = KIDS_BOARD.through
    own = mine | KIDS_BOARD.wild
    blocked = occ & ~mine
    others = [(theirs | KIDS_BOARD.wild, occ & ~theirs)
              for other, theirs in enumerate(chips) if other != side and theirs]
    for move in moves:
        card = move >> 6
        if card >= UNICORN or move >= DEAD:
            continue
        lines = through[move & 63]
        gain = 0.0
        for line in lines:
            if not line & blocked:
                n = (line & own).bit_count()
                gain += weights[n + 1] - weights[n]
        value = gain + rng.random() * 2.0
        for their_own, their_blocked in others:
            loss = 0.0
            for line in lines:
                if not line & their_blocked:
                    loss += weights[(line & their_own).bit_count()]
            value += DEFENCE * loss
        if value > best_value:
            best, best_value = move, value
    if best_value < 0.0:
        return moves[rng.randrange(len(moves))]
    return best


def child_move(game: KidsGame, rng: random.Random) -> int:
    """How a young child plays (the easy player): mostly sensible, sometimes not.

    It swaps dead cards and usually, not always, sees a move that wins. Otherwise it puts
    its chip next to its own chips (free corners count as its own), with a good deal of
    whim: it does not read lines or look at what the others build, likes its Unicorn a
    little less than an animal, and plays a Dragon only on a whim. Tuned so that it is
    not hopeless (it beats a random player most of the time) while the medium player,
    who reads lines and blocks, beats it about three games in four (``make tournament``).
    """
    moves = game.moves()
    if len(moves) == 1:
        return moves[0]
    winning = winning_moves(game, moves)
    if winning:
        if rng.random() < CHILD_SEES_WIN:
            return min(winning)  # an animal before the Unicorn
        moves = [m for m in moves if m not in winning] or moves
    for move in moves:
        if move >= DEAD and move != PASS:
            return move
    seat = game.current
    assert seat is not None
    own = game.chips[game.side_of[seat]] | CORNER_MASK
    best, best_value = moves[0], -1.0
    for move in moves:
        if move >= DEAD:
            continue
        card = move >> 6
        if card == DRAGON:
            value = 0.5 * rng.random()
        else:
            value = (NEIGHBOURS[move & 63] & own).bit_count() + CHILD_NOISE * rng.random()
            if card == UNICORN:
                value -= 0.5
        if value > best_value:
            best, best_value = move, value
    return best
