"""The store and the manager under load: what one accepted move costs, alone and with
200 games at once.

- ``store_move_ms_p50/p99``: engine ``apply`` + ``Store.record`` (the move's one
  transaction: action row + snapshot, WAL, synchronous=FULL) for one move at a time.
- ``manager_submit_ms_p99_200_games``: ``GameManager.submit`` latency with 200 games in
  play at once, each player thinking 0.5 to 1.5 s between moves (people on Discord take
  longer). ``..._saturated`` is the same with no thinking at all: every game submits as
  fast as it can, so each submit queues behind the other games' commits (the fsyncs are
  serialised by design).
- ``..._one_commit_per_move``: the paced run again without group commit (every move its
  own transaction and fsync), the old way, for the ratio.
- ``store_one_hop_speedup``: ``Store.record`` (one hop to aiosqlite's thread per
  transaction) against the same transaction as one awaited statement at a time.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import engine
from engine.ai import RandomAgent
from manager import GameManager, Player, Store, SystemClock
from store import Seat

GAMES = 200
MOVES_PER_GAME = 15
STORE_GAMES = 20
THINK_S = (0.5, 1.5)


@dataclass(frozen=True)
class Sizes:
    """How much is measured: the full run's sizes, or ``QUICK``'s (seconds, to see that
    the module still works)."""

    games: int = GAMES
    moves_per_game: int = MOVES_PER_GAME
    store_games: int = STORE_GAMES
    think: tuple[float, float] = THINK_S


QUICK = Sizes(games=8, moves_per_game=4, store_games=2, think=(0.05, 0.15))


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * p))] * 1000, 3)


async def store_moves(folder: Path, games: int = STORE_GAMES
                      ) -> tuple[list[float], list[float]]:
    """Per move: engine + one-hop commit; and the same commit statement by statement."""
    store = await Store.open(folder / "store.sqlite3")
    one_hop: list[float] = []
    per_statement: list[float] = []
    rng = random.Random(1)
    try:
        for n in range(games):
            gid = await store.games.create_lobby("kids", {}, 1, n, 1, [Seat(0, 1, "a"),
                                           Seat(1, 2, "b")], lobby_deadline=None,
                                           on_leave="skip", now=0)
            assert gid is not None
            game = engine.new_game("kids", 2, n)
            await store.games.start_game(gid, seed=n, options=game.options,
                                   snapshot=game.to_dict(), seats=[], turn_deadline=None,
                                   now=0)
            while not game.is_over and len(game.history) < 60:
                ply = len(game.history)
                action = rng.choice(game.legal_actions())
                started = time.perf_counter()
                game.apply(action)
                snapshot = game.to_dict()
                if ply % 2:
                    await store.games.record(gid, [(ply, 0, action)], snapshot, now=0,
                                       turn_deadline=None)
                    one_hop.append(time.perf_counter() - started)
                else:
                    async with store.transaction() as db:
                        await db.execute("INSERT INTO actions (game_id, ply, seat, action, at)"
                                         " VALUES (?, ?, ?, ?, ?)", (gid, ply, 0, action, 0))
                        await db.execute("UPDATE games SET snapshot = ?, status = 'playing',"
                                         " turn_deadline = NULL, turn_reminded = 0,"
                                         " end_reason = NULL, updated_at = 0 WHERE id = ?",
                                         (engine_json(snapshot), gid))
                    per_statement.append(time.perf_counter() - started)
    finally:
        await store.close()
    return one_hop, per_statement


def engine_json(snapshot: dict[str, object]) -> str:
    import json

    return json.dumps(snapshot, separators=(",", ":"), sort_keys=True)


async def many_games(folder: Path, think: tuple[float, float], *,
                     group_commit: bool = True, sizes: Sizes = Sizes()) -> list[float]:
    name = f"games-{think[1]}-{group_commit}.sqlite3"
    store = await Store.open(folder / name, group_commit=group_commit)
    manager = GameManager(store, computer_delay=0, clock=SystemClock(),
                          agent_factory=lambda level, seed: RandomAgent(seed))
    await manager.start(run_timers=False)
    latencies: list[float] = []

    async def one_game(i: int) -> None:
        rng = random.Random(i)
        a, b = Player(2 * i + 1, "a"), Player(2 * i + 2, "b")
        lobby = await manager.create_lobby("kids" if i % 2 else "dice", {}, a, 1, i)
        await manager.join(lobby.game_id, b)
        gid = (await manager.start_game(lobby.game_id, a.user_id)).game_id
        for _ in range(sizes.moves_per_game):
            await asyncio.sleep(rng.uniform(*think))
            view = manager.get(gid) if manager.is_active(gid) else None
            if view is None:
                return
            assert view.turn is not None
            user = view.seats[view.turn].user_id
            assert user is not None
            action = rng.choice(manager.observation_for(gid, user)["legal"])
            started = time.perf_counter()
            await manager.submit(gid, user, action)
            latencies.append(time.perf_counter() - started)

    try:
        await asyncio.gather(*(one_game(i) for i in range(sizes.games)))
    finally:
        await manager.close()
        await store.close()
    return latencies


async def measure(sizes: Sizes = Sizes()) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        one_hop, per_statement = await store_moves(folder, sizes.store_games)
        paced = await many_games(folder, sizes.think, sizes=sizes)
        paced_single = await many_games(folder, sizes.think, group_commit=False, sizes=sizes)
        saturated = await many_games(folder, (0.0, 0.0), sizes=sizes)
    return {
        "store_move_ms_p50": pct(one_hop, 0.5),
        "store_move_ms_p99": pct(one_hop, 0.99),
        "store_move_ms_p50_statement_by_statement": pct(per_statement, 0.5),
        "store_one_hop_speedup": round(statistics.median(per_statement)
                                       / statistics.median(one_hop), 2),
        "manager_submit_ms_p50_200_games": pct(paced, 0.5),
        "manager_submit_ms_p99_200_games": pct(paced, 0.99),
        "manager_submit_ms_p99_200_games_saturated": pct(saturated, 0.99),
        "manager_submit_ms_p99_200_games_one_commit_per_move": pct(paced_single, 0.99),
        "manager_moves_200_games": float(len(paced)),
    }


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: 8 games of 4 moves, thinking a tenth as long (the figure names keep
    saying 200: they are the full run's)."""
    return asyncio.run(measure(QUICK if quick else Sizes()))
