"""Computer players: how long the hard player thinks, and small seat-balanced matches.

- ``ai_hard_ms_per_move``: median time of a hard Kids move with a real choice (default
  budget: DEFAULT_ITERATIONS playouts, capped at 0.3 s), over positions from medium-vs-medium games;
  ``ai_hard_dice_ms_per_move`` the same for Dice (moves after a roll).
- ``ai_hard_iterations_per_s``: Kids playouts per second inside those searches.
- ``ai_<a>_vs_<b>_<game>``: A's score (win 1, draw 1/2) in 2-seat matches, each deal
  played with A in both seats. These are small runs (30 to 200 games; their 95% intervals
  are about +-7 to +-12 points): ``make tournament`` gives the real figures with intervals.
The whole module runs in about two to three minutes on two cores.
"""

from __future__ import annotations

import itertools
import multiprocessing
import random
import statistics
import time

import engine
from engine.ai import DEFAULT_ITERATIONS, DEFAULT_TIME_LIMIT, make_agent
from tools import tournament

POSITIONS = 24


def _positions(game: str, count: int) -> list[dict[str, object]]:
    """Observations with a real choice, from games between medium players."""
    out: list[dict[str, object]] = []
    seed = 0
    while len(out) < count:
        g = engine.new_game(game, 2, 500 + seed)
        agents = [make_agent("medium", seed), make_agent("medium", seed + 1)]
        rng = random.Random(seed)
        while not g.is_over and len(out) < count:
            seat = g.current_seat
            assert seat is not None
            obs = g.observation(seat)
            if len(obs["legal"]) > 1 and rng.random() < 0.3:
                out.append(obs)
            g.apply(agents[seat].choose(obs))
        seed += 1
    return out


def _timing(game: str, positions: int = POSITIONS) -> tuple[float, float]:
    agent = make_agent("hard", 1)
    times, iterations = [], 0
    for obs in _positions(game, positions):
        started = time.perf_counter()
        agent.choose(obs)
        times.append(time.perf_counter() - started)
        iterations += agent.last_iterations
    return 1000 * statistics.median(times), iterations / sum(times)


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: 3 positions a game, and one deal a match with a tenth of the playouts in
    one process (the module still works; the match scores mean nothing then)."""
    positions = 3 if quick else POSITIONS
    kids_ms, kids_rate = _timing("kids", positions)
    dice_ms, _ = _timing("dice", positions)
    figures = {
        "ai_hard_ms_per_move": round(kids_ms, 1),
        "ai_hard_iterations_per_s": round(kids_rate),
        "ai_hard_dice_ms_per_move": round(dice_ms, 1),
    }
    matches = [
        ("ai_hard_vs_medium_kids", "kids:2", "hard:medium", 30),
        ("ai_medium_vs_easy_kids", "kids:2", "medium:easy", 100),
        ("ai_hard_vs_random_kids", "kids:2", "hard:random", 15),
        ("ai_hard_vs_medium_dice", "dice:2", "hard:medium", 40),
    ]
    iterations, limit = DEFAULT_ITERATIONS, DEFAULT_TIME_LIMIT
    if quick:
        matches = [(name, kind, pair, 1) for name, kind, pair, _ in matches]
        iterations, limit = max(1, DEFAULT_ITERATIONS // 10), DEFAULT_TIME_LIMIT / 10
    # Interleaved, so that if time runs out every match still has some games.
    lists = [tournament.jobs_for([pair], [kind], games, iterations, limit)
             for _, kind, pair, games in matches]
    jobs = [job for group in itertools.zip_longest(*lists) for job in group if job]
    workers = 1 if quick else min(2, multiprocessing.cpu_count())
    tallies = tournament.run(jobs, workers, max_seconds=20 if quick else 150)
    for name, kind, pair, _ in matches:
        game, seats = kind.split(":")
        tally = tallies.get((game, int(seats), pair))
        if tally and tally.games:
            figures[name] = round(tally.score / tally.games, 3)
    return figures
