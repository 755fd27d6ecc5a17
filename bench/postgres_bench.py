"""One committed move on PostgreSQL against the same on SQLite, in the same run.

- ``move_commit_ms_p50/p99_sqlite``: engine ``apply`` + ``Store.record`` (the move's one
  transaction) on a SQLite file (WAL, synchronous=FULL, group commit), one move at a time.
- ``move_commit_ms_p50/p99_postgres``: the same moves on a throwaway local PostgreSQL
  server (``tools/pg_server.py``) with its durable defaults (fsync on,
  synchronous_commit on), over 127.0.0.1, through the asyncpg pool.

- ``move_commit_ms_p50/p99_postgres_locked``: the same, each move under the game's lock
  in the database with its promise to announce, as several processes share games
  (``store.shared.SharedGames.locked``) before chores; ``..._chores``: also writing the
  game's next chore in the move's transaction (issue 17). ``chore_cost_ratio``: the p50
  with the chore over the p50 without it, in the same run on the same server.

Skipped, with a line saying so, when PostgreSQL is not installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import engine
from store import Seat, Store
from store.postgres import PostgresDatabase
from store.shared import SharedGames
from tools.pg_server import PostgresServer, find_bindir

GAMES = 20
MOVES = 40
ROUNDS = 3  # of the locked and the chores ways, alternated


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * p))] * 1000, 3)


Locking = Callable[[int], contextlib.AbstractAsyncContextManager[None]]


async def moves(store: Store, locked: Locking | None = None, *, games: int = GAMES,
                most: int = MOVES) -> list[float]:
    """Per move: engine + the move's commit, the same seeded moves on either backend
    (``locked``: each move under this game's lock, as the manager does it on PostgreSQL
    with other processes)."""
    rng = random.Random(1)
    took: list[float] = []
    channels = itertools.count(await _channels_used(store))
    for n in range(games):
        gid = await store.games.create_lobby(
            "kids", {}, 1, next(channels), 1, [Seat(0, 1, "a"), Seat(1, 2, "b")],
            lobby_deadline=None, on_leave="skip", now=0)
        assert gid is not None
        game = engine.new_game("kids", 2, n)
        await store.games.start_game(gid, seed=n, options=game.options,
                                     snapshot=game.to_dict(), seats=[], turn_deadline=None,
                                     now=0)
        while not game.is_over and len(game.history) < most:
            ply = len(game.history)
            action = rng.choice(game.legal_actions())
            started = time.perf_counter()
            async with locked(gid) if locked is not None else contextlib.nullcontext():
                game.apply(action)
                await store.games.record(gid, [(ply, ply % 2, action)], game.to_dict(),
                                         now=time.time(), turn_deadline=None)
            took.append(time.perf_counter() - started)
    return took


async def _channels_used(store: Store) -> int:
    """The next free channel id: each round of games gets channels of its own (a channel
    holds one game in play)."""
    row = await store.database.fetchone("SELECT COALESCE(MAX(channel_id), 0) + 1 FROM games")
    return int(row[0]) if row is not None else 1


async def measure(games: int = GAMES, most: int = MOVES, rounds: int = ROUNDS
                  ) -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        try:
            lite = await moves(store, games=games, most=most)
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
            pg = await moves(store, games=games, most=most)
            db = store.database
            assert isinstance(db, PostgresDatabase)
            shared = SharedGames(db)

            def old(gid: int) -> contextlib.AbstractAsyncContextManager[None]:
                return shared.locked(gid, "bench")

            def new(gid: int) -> contextlib.AbstractAsyncContextManager[None]:
                # the chore as the store keeps it (a ChoreRow: what, due at, claimed until)
                return shared.locked(gid, "bench",
                                     chore=lambda: ("reminder", time.time() + 30, None))

            # alternate the two ways in rounds, so the machine's noise hits both alike
            locked, chores = [], []
            for _ in range(rounds):
                locked += await moves(store, old, games=games, most=most)
                chores += await moves(store, new, games=games, most=most)
        finally:
            await store.close()
    figures["move_commit_ms_p50_postgres"] = pct(pg, 0.5)
    figures["move_commit_ms_p99_postgres"] = pct(pg, 0.99)
    figures["move_commit_ms_p50_postgres_locked"] = pct(locked, 0.5)
    figures["move_commit_ms_p99_postgres_locked"] = pct(locked, 0.99)
    figures["move_commit_ms_p50_postgres_chores"] = pct(chores, 0.5)
    figures["move_commit_ms_p99_postgres_chores"] = pct(chores, 0.99)
    figures["chore_cost_ratio"] = round(pct(chores, 0.5) / pct(locked, 0.5), 2)
    return figures


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: 2 games of 10 moves, one round (the module still works)."""
    return asyncio.run(measure(2, 10, 1) if quick else measure())
