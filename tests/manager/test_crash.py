"""Crash safety: a process playing games is SIGKILLed at random moments, again and again.

After every kill: each move the process announced is in the database; each game's
snapshot and action log were committed together; and a restarted manager restores every
game exactly as last committed (board, hands, deck order, turn, timers). The next worker
then resumes those games, so later kills land in restored games too.

``make test`` runs a quick subset; ``make reliability`` runs 60 kills
(``CRASH_KILLS=60``).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from engine import replay
from manager import GameManager, ManualClock, Store

from .conftest import random_agent

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("CRASH_KILLS", "12"))


def run_and_kill(db: Path, seed: int, rng: random.Random) -> dict[int, int]:
    """Start a worker, let it play for a random while, SIGKILL it; the announced plies."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.manager.crash_worker", str(db), str(seed)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first == "READY\n", (first, proc.stderr.read() if proc.stderr else "")
    time.sleep(rng.uniform(0.0, 0.4))
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err
    announced: dict[int, int] = defaultdict(lambda: -1)
    for line in out.splitlines():
        if line.startswith("M "):
            _, game, ply = line.split()
            announced[int(game)] = max(announced[int(game)], int(ply))
    return dict(announced)


def committed(db: Path) -> dict[int, dict[str, Any]]:
    """Every game as an independent reader (plain sqlite3) sees it."""
    con = sqlite3.connect(db)
    try:
        games: dict[int, dict[str, Any]] = {}
        for gid, status, snapshot, deadline, reminded in con.execute(
                "SELECT id, status, snapshot, turn_deadline, turn_reminded FROM games"):
            log = [a for (a,) in con.execute(
                "SELECT action FROM actions WHERE game_id = ? ORDER BY ply", (gid,))]
            plies = [p for (p,) in con.execute(
                "SELECT ply FROM actions WHERE game_id = ? ORDER BY ply", (gid,))]
            assert plies == list(range(len(plies))), f"game {gid}: hole in the log"
            games[gid] = {"status": status, "log": log, "deadline": deadline,
                          "reminded": bool(reminded),
                          "snapshot": json.loads(snapshot) if snapshot else None}
        return games
    finally:
        con.close()


async def check_restore(db: Path, games: dict[int, dict[str, Any]]) -> int:
    """A restarted manager holds exactly the committed state of every game in play."""
    store = await Store.open(db)
    manager = GameManager(store, computer_delay=0, clock=ManualClock(),
                          agent_factory=random_agent)
    try:
        await manager.start(run_timers=False, resume=False)
        playing = {gid: g for gid, g in games.items() if g["status"] == "playing"}
        assert {t.game_id for t in manager.tables() if t.status == "playing"} == set(playing)
        for gid, g in playing.items():
            state = manager.game_state(gid)
            assert state == g["snapshot"], f"game {gid} restored differently"
            view = manager.get(gid)
            assert (view.turn_deadline, view.ply) == (g["deadline"], len(g["log"]))
        return len(playing)
    finally:
        await manager.close()
        await store.close()


async def test_sigkill_at_random_moments_loses_nothing_committed(tmp_path: Path) -> None:
    db = tmp_path / "crash.sqlite3"
    rng = random.Random(20261126)
    kills = restored = moves_seen = 0
    for round_ in range(KILLS):
        announced = run_and_kill(db, round_, rng)
        kills += 1
        games = committed(db)
        for gid, ply in announced.items():
            # Announced only after the commit: every announced move is in the log.
            assert len(games[gid]["log"]) > ply, f"game {gid} lost announced ply {ply}"
        for gid, g in games.items():
            snap = g["snapshot"]
            if snap is None:
                continue
            # Snapshot and log were written in one transaction.
            assert snap["history"] == g["log"], f"game {gid}: snapshot and log disagree"
            if g["status"] != "lobby":
                assert replay(snap["game"], snap["seats"], snap["seed"], g["log"],
                              **snap["options"]).to_dict() == snap
        moves_seen += sum(len(g["log"]) for g in games.values())
        restored += await check_restore(db, games)
    finished = sum(g["status"] == "finished" for g in committed(db).values())
    print(f"{kills} kills, {restored} game restores checked, {finished} games finished")
    assert kills == KILLS and restored > 0 and finished > 0
