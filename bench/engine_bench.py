"""Engine speed: whole 2-seat games of random legal play.

- ``kids_playouts_per_s`` / ``dice_playouts_per_s``: the fast path (int moves, no checks),
  the one computer players search with, from a fresh deal to the end.
- ``kids_api_games_per_s``: the same games through the public string API
  (``legal_actions()`` and ``apply(text)``), which checks everything.
The machine is shared and noisy, so each figure is the best of several rounds, and the ratio
of the two Kids figures (same run, same seeds) is reported too.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

import engine
from engine.playout import random_playout

ROUNDS = 5


def _best_rate(games: int, play_one: Callable[[int, random.Random], object],
               rounds: int = ROUNDS) -> float:
    rates = []
    for round_no in range(rounds):
        rng = random.Random(round_no)
        started = time.perf_counter()
        for seed in range(games):
            play_one(seed, rng)
        rates.append(games / (time.perf_counter() - started))
    return max(rates)


def _fast(kind: str) -> Callable[[int, random.Random], object]:
    def play_one(seed: int, rng: random.Random) -> object:
        return random_playout(engine.new_game(kind, 2, seed), rng)

    return play_one


def _api(seed: int, rng: random.Random) -> object:
    game = engine.new_game("kids", 2, seed)
    while not game.is_over:
        actions = game.legal_actions()
        game.apply(actions[int(rng.random() * len(actions))])
    return game.winner


def _moves_per_game(kind: str, games: int = 300) -> float:
    rng = random.Random(1)
    lengths = []
    for seed in range(games):
        game = engine.new_game(kind, 2, seed)
        count = 0
        while not game.is_over:
            moves = game.moves()
            game.play(moves[int(rng.random() * len(moves))])
            count += 1
        lengths.append(count)
    return statistics.mean(lengths)


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: a tenth of the games, one round (the module still works)."""
    scale, rounds = (10, 1) if quick else (1, ROUNDS)
    kids_fast = _best_rate(2000 // scale, _fast("kids"), rounds)
    kids_api = _best_rate(300 // scale, _api, rounds)
    dice_fast = _best_rate(500 // scale, _fast("dice"), rounds)
    return {
        "kids_playouts_per_s": round(kids_fast),
        "dice_playouts_per_s": round(dice_fast),
        "kids_api_games_per_s": round(kids_api),
        "kids_fast_over_api": round(kids_fast / kids_api, 1),
        "kids_moves_per_random_game": round(_moves_per_game("kids", 300 // scale), 1),
        "dice_moves_per_random_game": round(_moves_per_game("dice", 300 // scale), 1),
    }
