"""One committed move on PostgreSQL against the same on SQLite, in the same run.

- ``move_commit_ms_p50/p99_sqlite``: engine ``apply`` + ``Store.record`` (the move's one
  transaction) on a SQLite file (WAL, synchronous=FULL, group commit), one move at a time.
- ``move_commit_ms_p50/p99_postgres``: the same moves on a throwaway local PostgreSQL
  server (``tools/pg_server.py``) with its durable defaults (fsync on,
  synchronous_commit on), over 127.0.0.1, through the asyncpg pool.

Skipped, with a line saying so, when PostgreSQL is not installed.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from pathlib import Path

import engine
from engine.manager.store import Seat, Store
from tools.pg_server import PostgresServer, find_bindir

GAMES = 20
MOVES = 40


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * p))] * 1000, 3)


async def moves(store: Store) -> list[float]:
    """Per move: engine + the move's commit, the same seeded moves on either backend."""
    rng = random.Random(1)
    took: list[float] = []
    for n in range(GAMES):
        gid = await store.games.create_lobby(
            "kids", {}, 1, n, 1, [Seat(0, 1, "a"), Seat(1, 2, "b")], lobby_deadline=None,
            on_leave="skip", now=0)
        assert gid is not None
        game = engine.new_game("kids", 2, n)
        await store.games.start_game(gid, seed=n, options=game.options,
                                     snapshot=game.to_dict(), seats=[], turn_deadline=None,
                                     now=0)
        while not game.is_over and len(game.history) < MOVES:
            ply = len(game.history)
            action = rng.choice(game.legal_actions())
            started = time.perf_counter()
            game.apply(action)
            await store.games.record(gid, [(ply, ply % 2, action)], game.to_dict(),
                                     now=time.time(), turn_deadline=None)
            took.append(time.perf_counter() - started)
    return took


async def measure() -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        try:
            lite = await moves(store)
        finally:
            await store.close()
    figures["move_commit_ms_p50_sqlite"] = pct(lite, 0.5)
    figures["move_commit_ms_p99_sqlite"] = pct(lite, 0.99)
    bindir = find_bindir()
    if bindir is None:
        print("PostgreSQL is not installed: the PostgreSQL figures are skipped", flush=True)
        return figures
    with PostgresServer(bindir, durable=True) as server:
        store = await Store.connect(server.url())
        try:
            pg = await moves(store)
        finally:
            await store.close()
    figures["move_commit_ms_p50_postgres"] = pct(pg, 0.5)
    figures["move_commit_ms_p99_postgres"] = pct(pg, 0.99)
    return figures


def run() -> dict[str, float]:
    return asyncio.run(measure())
