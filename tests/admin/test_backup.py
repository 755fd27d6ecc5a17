"""Backups of the live database while a game runs, and restores, played on to the end."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from manager import GameManager, ManualClock, Store
from tests.manager.conftest import make_manager, play_out, two_player_game
from tools.backup import BackupError, backup, restore

ROOT = Path(__file__).resolve().parents[2]


async def opened(path: Path) -> tuple[Store, GameManager]:
    store = await Store.open(path)
    manager = make_manager(store, ManualClock())
    await manager.start(run_timers=False)
    return store, manager


async def shut(store: Store, manager: GameManager) -> None:
    await manager.close()
    await store.close()


async def move(manager: GameManager, game_id: int, rng: random.Random) -> None:
    view = manager.get(game_id)
    assert view.turn is not None
    user = view.seats[view.turn].user_id
    assert user is not None
    await manager.submit(game_id, user, rng.choice(manager.observation_for(game_id, user)["legal"]))


async def test_a_backup_taken_while_moves_are_made_plays_on_to_the_end(tmp_path: Path) -> None:
    live = tmp_path / "data" / "sequence.db"
    store, manager = await opened(live)
    game_id = await two_player_game(manager, "dice")
    rng = random.Random(7)
    for _ in range(4):
        await move(manager, game_id, rng)
    copies = [tmp_path / "backups" / f"copy{i}.db" for i in range(5)]
    stop = asyncio.Event()

    async def keep_playing() -> int:
        moves = 0
        while not stop.is_set() and manager.is_active(game_id) and moves < 40:
            await move(manager, game_id, rng)
            moves += 1
            await asyncio.sleep(0)
        return moves

    player = asyncio.create_task(keep_playing())
    for copy in copies:  # each backup runs in a thread while the game commits moves
        await asyncio.to_thread(backup, live, copy)
        await asyncio.sleep(0.005)
    stop.set()
    assert await player > 0
    history = manager.game_state(game_id)["history"]
    await shut(store, manager)

    lengths = set()
    for copy in copies:
        assert not Path(str(copy) + "-wal").exists(), "a backup is one file"
        assert copy.stat().st_mode & 0o077 == 0, "only the owner reads a backup"
        store, manager = await opened(copy)
        copied = manager.game_state(game_id)["history"]
        assert copied == history[:len(copied)] and len(copied) >= 4
        lengths.add(len(copied))
        await play_out(manager, game_id, random.Random(1))
        assert not manager.is_active(game_id)
        await shut(store, manager)
    assert len(lengths) > 1, "the backups were taken while the game went on"


async def test_a_restore_brings_the_game_back_to_the_backup_and_it_plays_on(
        tmp_path: Path) -> None:
    live = tmp_path / "sequence.db"
    store, manager = await opened(live)
    game_id = await two_player_game(manager, "kids")
    rng = random.Random(3)
    for _ in range(5):
        await move(manager, game_id, rng)
    saved = tmp_path / "saved.db"
    backup(live, saved)
    at_backup = manager.game_state(game_id)
    for _ in range(3):
        await move(manager, game_id, rng)
    after = manager.game_state(game_id)

    with pytest.raises(BackupError, match="stop the bot first"):
        restore(saved, live)  # the store is still open
    await shut(store, manager)

    kept = restore(saved, live)
    assert kept == tmp_path / "sequence.db.before-restore"
    store, manager = await opened(live)
    assert manager.game_state(game_id) == at_backup
    await play_out(manager, game_id, random.Random(5))
    assert not manager.is_active(game_id)
    await shut(store, manager)

    store, manager = await opened(kept)  # the database the restore replaced, untouched
    assert manager.game_state(game_id) == after
    await shut(store, manager)


def test_no_database_or_an_existing_destination_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="there is no database at"):
        backup(tmp_path / "missing.db", tmp_path / "copy.db")
    assert not (tmp_path / "missing.db").exists(), "a backup never creates the database"
    live = tmp_path / "live.db"
    with sqlite3.connect(live) as db:
        db.execute("CREATE TABLE t (x)")
    dest = tmp_path / "copy.db"
    dest.write_text("an older backup")
    with pytest.raises(BackupError, match="already exists"):
        backup(live, dest)
    assert dest.read_text() == "an older backup"
    backup(live, dest, force=True)
    with sqlite3.connect(dest) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]


def test_a_damaged_backup_is_not_restored(tmp_path: Path) -> None:
    live = tmp_path / "live.db"
    with sqlite3.connect(live) as db:
        db.execute("CREATE TABLE t (x)")
    before = live.read_bytes()
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(BackupError, match="not a usable SQLite database"):
        restore(junk, live)
    assert live.read_bytes() == before
    with pytest.raises(BackupError, match="there is no backup at"):
        restore(tmp_path / "nothing.db", live)


def test_the_command_uses_the_bots_database_setting(tmp_path: Path) -> None:
    live = tmp_path / "bot.db"
    with sqlite3.connect(live) as db:
        db.execute("CREATE TABLE t (x)")
    env = {"PATH": "/usr/bin:/bin", "DATABASE_PATH": str(live)}

    def tool(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "tools.backup", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60, check=False)

    done = tool(str(tmp_path / "b" / "one.db"))
    assert done.returncode == 0, done.stderr
    assert f"backed up {live} to" in done.stderr
    again = tool(str(tmp_path / "b" / "one.db"))
    assert again.returncode == 1 and "already exists" in again.stderr
    assert "Traceback" not in again.stderr
    back = tool("--restore", str(tmp_path / "b" / "one.db"))
    assert back.returncode == 0, back.stderr
    assert "kept as" in back.stderr
