"""The hard Sequence for Kids player: determinized Monte Carlo search.

Each deal re-deals the cards the player cannot see (other hands and the deck, consistent
with its observation, see ``determinize``, and with what the last move showed: a player
who let a win or a block go had no card for it, see ``unlikely_cards``); on that deal
every candidate move is played, followed by quick sensible moves for both sides
(``kids_policy.playout_move``) for a bounded number of plies, with the same chance
afterwards for every candidate (common random numbers: the comparison measures the
moves, not the luck of the deal). A result is
1 for a win, 0.5 for a draw, 0 for a loss, or a static estimate when the playout is cut.

Candidates are the medium player's best few moves (only the ways of stopping it when an
opponent can win next turn). The medium player's first choice is the default: another
move is played only if, over the same deals, it did better by more than 1.5 standard
errors of the paired differences (the noise of a small budget must not cost games).
The budget is spent by sequential halving: equal shares per round, the worse half of the
other moves dropped after each round. Statistics live at the root only, shared across
deals: the root of single-observer information-set MCTS. A deeper tree buys little
here: what the others hold is re-dealt every iteration, so deeper nodes would see few
consistent deals within a 300 ms budget.

Winning now, or exchanging a dead card (a free new card), needs no search.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..kids import DEAD, PASS, KidsGame
from ..kids_board import ANIMAL_SPACES, DRAGON, UNICORN
from ..rng import GameRng
from .kids_policy import BLOCK_BONUS, WIN_SCORE, evaluate, playout_move, score_moves
from .lines import KIDS_BOARD, winning_spaces

CANDIDATES = 8
PLAYOUT_TURNS = 30  # plies after which a playout is scored by ``evaluate``
CONFIDENCE = 1.5  # standard errors by which a move must beat the default to replace it
REDEALS = 20  # tries at a deal that agrees with what the last move showed


@dataclass
class SearchResult:
    move: int
    iterations: int
    visits: dict[int, int]
    values: dict[int, float]


def unlikely_cards(base: KidsGame, seat: int) -> tuple[int, int] | None:
    """What the last move says about the hand of the seat that made it, if anything.

    A player who could have completed a sequence did so, and one who let a line of
    ``seat``'s side that wins next turn stand could not stop it (it held no card for the
    gap): cards it kept had none of those cards. Its hand is those kept cards plus one
    card drawn since, so at most one card of its hand is of those kinds. Public
    information only: the board before the move is the board now without the move.
    Returns (that seat, a mask of the card kinds, bit ``card``), or None.
    """
    if base.last is None or base.winner is not None or base.draw:
        return None
    mover, move = base.last[0], base.last[1]
    if mover == seat or move >= DEAD or base.side_of[mover] == base.side_of[seat]:
        return None
    card, bit = move >> 6, 1 << (move & 63)
    before = list(base.chips)
    if card == DRAGON:
        before[base.last[2]] |= bit
        occupied = base.occupied | bit
    else:
        before[base.side_of[mover]] ^= bit
        occupied = base.occupied ^ bit
    gaps = winning_spaces(KIDS_BOARD, before[base.side_of[mover]], occupied)
    mine = winning_spaces(KIDS_BOARD, before[base.side_of[seat]], occupied)
    if card != DRAGON and not mine & bit:  # it blocked none of them: it could not
        gaps |= mine & ~base.occupied
    if not gaps:
        return None
    kinds = 1 << UNICORN
    for animal, spaces in enumerate(ANIMAL_SPACES):
        if spaces & gaps:
            kinds |= 1 << animal
    return mover, kinds


def redeal(base: KidsGame, seat: int, rng: random.Random,
           unlikely: tuple[int, int] | None = None) -> KidsGame:
    """A copy of ``base`` with every card hidden from ``seat`` dealt again at random.

    ``unlikely`` (from ``unlikely_cards``): deals giving that seat more than one card of
    those kinds are dealt again (a few times at most: the cards must still add up).
    """
    game = base.copy()
    pool: list[int] = list(game.deck)
    for s, hand in enumerate(game.hands):
        if s != seat:
            pool.extend(hand)
    for _ in range(REDEALS if unlikely else 1):
        rng.shuffle(pool)
        if unlikely is None:
            break
        who, kinds = unlikely
        n = len(game.hands[who])
        # The seats other than ``seat`` take their hands from the end of the pool in
        # seat order: find where ``who``'s hand will come from.
        end = len(pool) - sum(len(game.hands[s]) for s in range(who) if s != seat)
        if sum(kinds >> c & 1 for c in pool[end - n:end]) <= 1:
            break
    for s, hand in enumerate(game.hands):
        if s != seat:
            n = len(hand)
            game.hands[s] = pool[-n:] if n else []
            del pool[len(pool) - n:]
    game.deck = pool
    return game


def shortlist(game: KidsGame, width: int) -> list[int]:
    """The moves worth searching for the seat to move, the medium player's choice first.

    One move when no search is needed: the only move, a win now, or a dead card to
    exchange (a free new card). When an opponent can win next turn, only the ways of
    stopping it (which block is best still is a question). Otherwise the medium player's
    best ``width`` moves.
    """
    moves = game.moves()
    if len(moves) == 1:
        return moves
    scores = score_moves(game, moves)
    best = max(moves, key=lambda m: scores[m])
    if scores[best] >= WIN_SCORE - 1.0:
        return [best]
    exchange = next((m for m in moves if m >= DEAD and m != PASS), None)
    if exchange is not None:
        return [exchange]
    ranked = sorted(moves, key=lambda m: (-scores[m], m))
    blocks = [m for m in ranked if scores[m] >= BLOCK_BONUS * 0.5]
    return blocks[:width] if blocks else ranked[:width]


def play_out(game: KidsGame, rng: random.Random) -> None:
    """The rest of a playout: quick sensible moves for every side, at most
    ``PLAYOUT_TURNS`` plies (then ``evaluate`` judges the position)."""
    turns = 0
    while game.winner is None and not game.draw and turns < PLAYOUT_TURNS:
        game.play(playout_move(game, rng))
        turns += 1


Finish = Callable[[KidsGame, random.Random], None]


def played_out(game: KidsGame, move: int, chance: int, side: int,
               finish: Finish = play_out) -> float:
    """How ``move`` turns out for ``side`` in ``game`` (left as it is): played, then the
    playout finished, with every chance after it drawn from ``chance``. Moves played out
    with the same ``chance`` meet the same luck (common random numbers)."""
    g = game.copy()
    g.rng = GameRng(chance)
    g.play(move)
    finish(g, random.Random(chance))
    return evaluate(g, side)


def deck_shuffled(game: KidsGame, rng: random.Random) -> KidsGame:
    """A copy of ``game`` with its deck shuffled from sorted: what comes out depends on
    what the deck holds, never on its order (a searcher that must not know the draws)."""
    world = game.copy()
    world.deck.sort()
    rng.shuffle(world.deck)
    return world


def search(base: KidsGame, rng: random.Random, iterations: int,
           time_limit: float | None, sees: str = "own", finish: Finish = play_out,
           ) -> SearchResult:
    """Choose a move for the seat to move in ``base`` (a determinized game).

    ``sees``: "own" (a fair player) re-deals every card it cannot see. Two unfair
    settings measure how much luck caps skill (``tools.tournament``): "hands" searches the
    true hands of the others but shuffles the deck for every deal (it knows what they
    hold, not what anyone will draw); "all" searches the true hands and deck order.

    ``finish`` plays the rest of each playout after the candidate move (``play_out``;
    ``tools.tournament`` has a yardstick that looks ahead at the next turn instead).
    """
    if sees not in ("own", "hands", "all"):
        raise ValueError(f"sees must be own, hands or all, not {sees!r}")
    seat = base.current
    assert seat is not None
    side = base.side_of[seat]
    survivors = shortlist(base, CANDIDATES)
    if len(survivors) == 1:
        return SearchResult(survivors[0], 0, {}, {})
    # The medium player's choice is the default; the search has to show, on the same
    # deals, that another move is better by more than its noise before it is played.
    default = survivors[0]
    rank = {m: i for i, m in enumerate(survivors)}  # ties go to the medium player's order
    visits = dict.fromkeys(survivors, 0)
    totals = dict.fromkeys(survivors, 0.0)
    # Per move: the sum and the sum of squares of (its result - the default's result),
    # over the deals both were played on.
    diff_sum = dict.fromkeys(survivors, 0.0)
    diff_sq = dict.fromkeys(survivors, 0.0)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    # Sequential halving: each round spends an equal share of the budget, then the
    # worse half of the moves is dropped (never the default). Every surviving move is
    # played on the same deals with the same chance afterwards (common random numbers),
    # so the comparison measures the moves, not the luck of the deal.
    rounds = max(1, math.ceil(math.log2(len(survivors))))
    unlikely = unlikely_cards(base, seat) if sees == "own" else None
    done = 0
    out_of_time = False
    for round_no in range(rounds):
        deals = max(1, iterations // (rounds * len(survivors)))
        for _ in range(deals):
            if sees == "own":
                game = redeal(base, seat, rng, unlikely)
            elif sees == "hands":
                game = deck_shuffled(base, rng)
            else:
                game = base
            chance = rng.getrandbits(64)
            results: dict[int, float] = {}
            for move in survivors:
                result = played_out(game, move, chance, side, finish)
                results[move] = result
                visits[move] += 1
                totals[move] += result
                done += 1
            for move in survivors:
                d = results[move] - results[default]
                diff_sum[move] += d
                diff_sq[move] += d * d
            if deadline is not None and time.perf_counter() > deadline:
                out_of_time = True
                break
        if out_of_time or round_no == rounds - 1:
            break
        others = sorted((m for m in survivors if m != default),
                        key=lambda m: (-totals[m] / visits[m], rank[m]))
        survivors = [default, *others[: max(1, len(others) // 2)]]
    chosen = default
    best_margin = 0.0
    n = visits[default]
    for move in survivors:
        if move == default or n < 4:
            continue
        mean = diff_sum[move] / n
        var = max(diff_sq[move] / n - mean * mean, 1e-9)
        margin = mean - CONFIDENCE * math.sqrt(var / n)
        if margin > best_margin:
            chosen, best_margin = move, margin
    return SearchResult(chosen, done, visits,
                        {m: totals[m] / visits[m] for m in visits if visits[m]})
