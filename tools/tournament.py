"""Computer players against each other: seat-balanced matches with 95% confidence intervals.

    python -m tools.tournament                       # everything, bounded to ~25 minutes
    python -m tools.tournament --games 40 --pairs hard:medium,medium:easy --kinds kids:2
    python -m tools.tournament --pairs hard:medium --kinds dice:2 --games 150

For each pair of levels A:B, game (kids, dice) and table size (2, 3 seats), every deal
(one seed) is played once with A in each seat, so neither side profits from moving first
or from a lucky deal:
- 2 seats: A-B and B-A on the same seed. A's score: a win 1, a draw 1/2 (draws are
  also counted on their own); 50% means equal.
- 3 seats: one A against two B's, A in each of the three seats on the same seed. A's
  score: a win 1, a draw 1/3; 33% means equal.
Intervals are Wilson score intervals (95%) over games. Games are independent only across
deals, so the interval is a little optimistic; the seat balancing lowers the variance.

Three unfair players show how much luck caps skill in Kids (rows "oracle:...",
"peek:..." and "ahead:..."): the hard search allowed to see hidden cards.
- oracle: every hidden card, the other hands and the deck order, so it knows what it and
  the others will draw next.
- peek: the other hands, but not the deck order. It knows strictly more than any fair
  player and faces the same luck of the draw, so a fair player can hope to do as well
  only by searching better.
- ahead: peek, searching deeper. In every playout it stops at its own next turn and
  searches again there (its best few moves, each played out on fresh shuffles of the
  deck), where peek and hard play on with quick moves. About ten times the playouts of
  peek per move and no time cap: it shows whether deeper search would pay.
A yardstick in the other direction, "grab": a player whose only skill is to take a win
when it has one, and who otherwise plays any legal move at random.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.ai import DEFAULT_ITERATIONS, OracleAgent, make_agent
from engine.ai.agents import Agent
from engine.ai.determinize import rebuild
from engine.ai.kids_policy import playout_move, winning_moves
from engine.ai.kids_search import PLAYOUT_TURNS, deck_shuffled, played_out, shortlist
from engine.kids import KidsGame

LEVEL_ORDER = ("hard", "medium", "easy", "random")
# Every pair of levels, and the see-everything bound (Kids only; see the module docstring).
ALL_PAIRS = (*(f"{a}:{b}" for a, b in itertools.combinations(LEVEL_ORDER, 2)),
             "oracle:medium", "peek:medium")
UNFAIR = ("oracle", "peek", "ahead")  # levels that see hidden cards
KIDS_ONLY = (*UNFAIR, "grab")
ALL_KINDS = ("kids:2", "dice:2", "kids:3", "dice:3")


@dataclass(frozen=True)
class Job:
    game: str
    seats: int
    first: str  # level A
    second: str  # level B
    deal: int
    iterations: int
    time_limit: float | None


@dataclass
class Tally:
    games: int = 0
    score: float = 0.0
    wins: int = 0
    draws: int = 0
    moves_a: int = 0
    seconds_a: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion ``score / n`` (score may be fractional)."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


class GrabAgent(Agent):
    """Takes a win when it has one, else plays any legal move (Kids): a yardstick."""

    level = "grab"

    def pick(self, obs: dict[str, Any], rng: random.Random) -> str:
        game = rebuild(obs, rng)
        assert isinstance(game, KidsGame)
        moves = game.moves()
        winning = winning_moves(game, moves)
        return game.move_text(winning[0] if winning else rng.choice(moves))


AHEAD_ROOT = 240  # ahead: playouts at the root (each one searches again inside)
AHEAD_WIDTH = 3  # ahead: moves weighed at its next turn
AHEAD_SAMPLES = 12  # ahead: shuffles of the deck each of them is played out on


def look_ahead(game: KidsGame, rng: random.Random, side: int) -> int:
    """The move of ``side`` (to move in ``game``) after weighing its best few moves, each
    played out on the same fresh shuffles of the deck: it knows the hands in this deal,
    never what will be drawn. Ties go to the medium player's order."""
    moves = shortlist(game, AHEAD_WIDTH)
    if len(moves) == 1:
        return moves[0]
    totals = dict.fromkeys(moves, 0.0)
    for _ in range(AHEAD_SAMPLES):
        world = deck_shuffled(game, rng)
        chance = rng.getrandbits(64)
        for move in moves:
            totals[move] += played_out(world, move, chance, side)
    return max(moves, key=lambda m: totals[m])


def finish_looking_ahead(game: KidsGame, rng: random.Random) -> None:
    """The rest of an "ahead" playout: quick moves, except that the searcher (who made the
    last move) searches again at its next turn."""
    assert game.last is not None
    side = game.side_of[game.last[0]]
    looked = False
    turns = 0
    while game.winner is None and not game.draw and turns < PLAYOUT_TURNS:
        seat = game.current
        assert seat is not None
        if not looked and game.side_of[seat] == side:
            move = look_ahead(game, rng, side)
            looked = True
        else:
            move = playout_move(game, rng)
        game.play(move)
        turns += 1


def _agent(level: str, seed: int, job: Job) -> Agent:
    if level == "grab":
        return GrabAgent(seed)
    if level == "ahead":
        return OracleAgent(seed, min(job.iterations, AHEAD_ROOT), None, sees="hands",
                           finish=finish_looking_ahead)
    if level in UNFAIR:
        return OracleAgent(seed, job.iterations, job.time_limit,
                           sees="all" if level == "oracle" else "hands")
    return make_agent(level, seed, iterations=job.iterations, time_limit=job.time_limit)


def play_deal(job: Job) -> dict[str, Any]:
    """Play one seed with A in every seat once; A's results."""
    seed = 10_000 + job.deal
    out = {"games": 0, "score": 0.0, "wins": 0, "draws": 0, "moves_a": 0, "seconds_a": 0.0}
    for a_seat in range(job.seats):
        levels = [job.second] * job.seats
        levels[a_seat] = job.first
        agents = [_agent(level, seed * 10 + s, job) for s, level in enumerate(levels)]
        game = engine.new_game(job.game, job.seats, seed)
        for agent in agents:
            if isinstance(agent, OracleAgent):
                agent.peek(game)  # type: ignore[arg-type]
        while not game.is_over:
            seat = game.current_seat
            assert seat is not None
            started = time.perf_counter()
            game.apply(agents[seat].choose(game.observation(seat)))
            if seat == a_seat:
                out["moves_a"] += 1
                out["seconds_a"] += time.perf_counter() - started
        out["games"] += 1
        if game.draw:
            out["draws"] += 1
            out["score"] += 1 / job.seats
        elif game.winner == game.side_of[a_seat]:
            out["wins"] += 1
            out["score"] += 1.0
    return out


def jobs_for(pairs: Sequence[str], kinds: Sequence[str], games: int, iterations: int,
             time_limit: float | None) -> list[Job]:
    """Deals interleaved across matches, so a run cut short by time still covers all."""
    jobs = []
    for deal in range(games):
        for kind in kinds:
            game, seats = kind.split(":")
            for pair in pairs:
                a, b = pair.split(":")
                if (a in KIDS_ONLY or b in KIDS_ONLY) and game != "kids":
                    continue
                jobs.append(Job(game, int(seats), a, b, deal, iterations, time_limit))
    return jobs


def run(jobs: list[Job], workers: int, max_seconds: float) -> dict[tuple[str, int, str], Tally]:
    """Play ``jobs`` on ``workers`` processes; stop taking results after ``max_seconds``."""
    tallies: dict[tuple[str, int, str], Tally] = {}
    started = time.perf_counter()

    def results() -> Iterator[tuple[Job, dict[str, Any]]]:
        if workers <= 1:
            for job in jobs:
                yield job, play_deal(job)
                if time.perf_counter() - started > max_seconds:
                    return
            return
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            it = pool.imap(play_deal, jobs)
            for job in jobs:
                remaining = max_seconds - (time.perf_counter() - started)
                if remaining <= 0:
                    pool.terminate()
                    return
                try:
                    yield job, it.next(timeout=remaining)
                except multiprocessing.TimeoutError:
                    pool.terminate()
                    return

    for job, res in results():
        key = (job.game, job.seats, f"{job.first}:{job.second}")
        tally = tallies.setdefault(key, Tally())
        tally.games += res["games"]
        tally.score += res["score"]
        tally.wins += res["wins"]
        tally.draws += res["draws"]
        tally.moves_a += res["moves_a"]
        tally.seconds_a += res["seconds_a"]
    return tallies


def report(tallies: dict[tuple[str, int, str], Tally]) -> list[dict[str, Any]]:
    rows = []
    for (game, seats, pair), t in sorted(tallies.items()):
        low, high = wilson(t.score, t.games)
        rows.append({
            "game": game, "seats": seats, "pair": pair, "games": t.games,
            "score": t.score / t.games if t.games else 0.0, "ci_low": low, "ci_high": high,
            "wins": t.wins, "draws": t.draws, "fair": 1 / seats,
            "ms_per_move_a": 1000 * t.seconds_a / t.moves_a if t.moves_a else 0.0,
        })
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    print(f"{'game':5} {'seats':>5} {'A:B':15} {'games':>5} {'A score':>8} "
          f"{'95% CI':>15} {'fair':>5} {'A wins':>6} {'draws':>5} {'A ms/move':>9}")
    for r in rows:
        print(f"{r['game']:5} {r['seats']:>5} {r['pair']:15} {r['games']:>5} "
              f"{r['score']:>8.1%} {r['ci_low']:>7.1%}-{r['ci_high']:<7.1%} "
              f"{r['fair']:>5.0%} {r['wins']:>6} {r['draws']:>5} {r['ms_per_move_a']:>9.1f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30,
                        help="deals per match (each deal is played once per seat of A)")
    parser.add_argument("--pairs", default=",".join(ALL_PAIRS),
                        help="comma-separated A:B level pairs (levels: hard, medium, easy, "
                             "random; oracle: the hard search seeing every hidden card; peek: "
                             "it seeing the other hands, not the deck order; ahead: peek "
                             "searching again at its next turn; grab: random but takes a win)")
    parser.add_argument("--kinds", default=",".join(ALL_KINDS),
                        help="comma-separated game:seats, e.g. kids:2,dice:3")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS,
                        help="hard player's playouts per move (Kids)")
    parser.add_argument("--time-limit", type=float, default=0.3,
                        help="hard player's time cap per move, seconds (0: none)")
    parser.add_argument("--workers", type=int, default=max(1, (multiprocessing.cpu_count())))
    parser.add_argument("--max-minutes", type=float, default=25.0,
                        help="stop after this long and report what was played")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    pairs = [p.strip() for p in args.pairs.split(",") if p.strip()]
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    jobs = jobs_for(pairs, kinds, args.games, args.iterations, args.time_limit or None)
    started = time.perf_counter()
    tallies = run(jobs, args.workers, args.max_minutes * 60)
    rows = report(tallies)
    print_rows(rows)
    played = sum(t.games for t in tallies.values())
    print(f"{played} games in {time.perf_counter() - started:.0f} s "
          f"({len(jobs)} deals planned). Score: win 1, draw 1/seats; CI: Wilson 95%.")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
