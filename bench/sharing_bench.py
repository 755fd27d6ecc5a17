"""Moves per second with one and with two bot processes on one PostgreSQL (issue 17).

Each process is a real OS process (``python -m bench.sharing_bench worker ...``) with its
own ``GameManager`` and connection pool on the same database, as ``python bot.py`` with
``SHARD_IDS`` would be; no Discord. Every move goes the shared way: the game's advisory
lock, the version check, engine, commit (with its delivery promise), NOTIFY, the promise
kept. Three ways of sharing ``GAMES`` two-player Kids games (``MOVES`` moves each,
``CONCURRENT`` games at once per process):

- ``1proc``: one process plays every move.
- ``2proc_split``: each process plays the games of its own servers (clicks in a server
  reach the process of its shard): the usual case.
- ``2proc_alternate``: every other move of every game is played by the other process (as
  when every click is a DM, which reaches shard 0's process whatever the server): each
  move finds its cache stale and reloads, and waits for the other's news.

Figures: ``sharing_moves_per_s_<way>`` (all moves over the wall time from the first
process ready to the last done) and ``sharing_move_ms_p50/p99_<way>`` (one ``submit``).

The machine has 2 cores, shared by PostgreSQL (durable: fsync on), the processes and the
benchmark itself: two processes compete with PostgreSQL for the same two cores, so the
second process buys little here; on separate machines it is the database that limits.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from typing import Any

import asyncpg

from engine.ai import RandomAgent
from manager import GameManager, ManualClock, Player, Store
from tools.pg_server import PostgresServer, find_bindir

GAMES = 40
MOVES = 40
CONCURRENT = 8


async def make_games(url: str, games: int = GAMES) -> list[int]:
    """Lobbies started by one manager (the game ids), then it stops."""
    store = await Store.connect(url)
    manager = GameManager(store, computer_delay=0, clock=ManualClock(),
                          agent_factory=lambda level, seed: RandomAgent(seed))
    await manager.start(run_timers=False)
    ids = []
    try:
        for n in range(games):
            view = await manager.create_lobby("kids", {}, Player(1, "a"), 1, 10_000 + n)
            await manager.join(view.game_id, Player(2, "b"))
            await manager.start_game(view.game_id, 1)
            ids.append(view.game_id)
    finally:
        await manager.close()
        await store.close()
    return ids


async def worker(url: str, games: list[int], me: int, processes: int, most: int = MOVES
                 ) -> dict[str, Any]:
    """Play the moves of ``games`` whose ply falls to this process (``processes``: how
    many share each game's moves)."""
    store = await Store.connect(url)
    manager = GameManager(store, computer_delay=0, clock=ManualClock())
    await manager.start(run_timers=False)
    began = time.time()
    took: list[float] = []
    gate = asyncio.Semaphore(CONCURRENT)
    rng = random.Random(me)

    async def play(game_id: int) -> None:
        async with gate:
            while True:
                if not manager.is_active(game_id):
                    return
                view = manager.get(game_id)
                if view.ply >= most:
                    return
                if view.ply % processes != me or view.turn is None:
                    await asyncio.sleep(0.002)  # the other process's move: wait for news
                    continue
                user = view.seats[view.turn].user_id
                assert user is not None
                legal = manager.observation_for(game_id, user)["legal"]
                started = time.perf_counter()
                try:
                    await manager.submit(game_id, user, rng.choice(legal),
                                         expected_ply=view.ply)
                except ValueError:
                    continue  # the cache was behind: the lock reloaded it; look again
                took.append(time.perf_counter() - started)

    try:
        await asyncio.gather(*(play(g) for g in games))
        ended = time.time()
    finally:
        await manager.close()
        await store.close()
    return {"took": took, "began": began, "ended": ended}


async def create_database(server: PostgresServer, dbname: str) -> None:
    admin = await asyncpg.connect(server.url())
    try:
        await admin.execute(f'CREATE DATABASE "{dbname}"')
    finally:
        await admin.close()


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(len(values) * p))] * 1000, 2) if values else 0


def measure_with(server: PostgresServer, way: str, count: int = GAMES, most: int = MOVES
                 ) -> dict[str, float]:
    dbname = f"bench_sharing_{way}"
    asyncio.run(create_database(server, dbname))
    url = server.url(dbname)
    games = asyncio.run(make_games(url, count))
    if way == "1proc":
        parts = [(games, 0, 1)]
    elif way == "2proc_split":
        parts = [(games[0::2], 0, 1), (games[1::2], 0, 1)]
    else:
        parts = [(games, 0, 2), (games, 1, 2)]
    workers = [subprocess.Popen([sys.executable, "-m", "bench.sharing_bench", "worker", url,
                                 json.dumps(part), str(me), str(share), str(most)],
                                stdout=subprocess.PIPE) for part, me, share in parts]
    took: list[float] = []
    began, ended = [], []
    for w in workers:
        out, _ = w.communicate(timeout=600)
        result = json.loads(out.decode().strip().splitlines()[-1])
        took += result["took"]
        began.append(result["began"])
        ended.append(result["ended"])
    wall = max(ended) - min(began)
    tag = way
    return {f"sharing_moves_per_s_{tag}": round(len(took) / wall, 1),
            f"sharing_move_ms_p50_{tag}": pct(took, 0.5),
            f"sharing_move_ms_p99_{tag}": pct(took, 0.99)}


def run(quick: bool = False) -> dict[str, float]:
    """``quick``: 4 games of 6 moves (the module still works)."""
    count, most = (4, 6) if quick else (GAMES, MOVES)
    bindir = find_bindir()
    if bindir is None:
        print("PostgreSQL is not installed: the sharing figures are skipped", flush=True)
        return {}
    figures: dict[str, float] = {}
    with PostgresServer(bindir, durable=True) as server:
        for way in ("1proc", "2proc_split", "2proc_alternate"):
            figures.update(measure_with(server, way, count, most))
    return figures


if __name__ == "__main__":
    if sys.argv[1:2] == ["worker"]:
        url, games = sys.argv[2], json.loads(sys.argv[3])
        me, processes, most = map(int, sys.argv[4:7])
        print(json.dumps(asyncio.run(worker(url, games, me, processes, most))))
    else:
        print(run())
