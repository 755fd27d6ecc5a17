"""The store: a durable, owner-only SQLite file; migrations that upgrade, never drop;
transactions kept apart; stats from results. The tests that take ``store`` run on both
backends; the ones on ``db_path`` are about the SQLite file itself (its mode, WAL, its
PRAGMAs, its bytes) and have PostgreSQL twins in test_store_postgres.py."""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import stat
import sys
from pathlib import Path

import pytest

from cogs.table.manners import Layout, TableManners
from store import (
    GameLog,
    GuildSettings,
    IntegrityError,
    ResultRecord,
    SchemaTooNew,
    Seat,
    Standings,
    Store,
    StoreError,
    Tx,
    migration_files,
)


async def test_the_file_is_owner_only_durable_and_migrated(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        assert stat.S_IMODE(db_path.stat().st_mode) == 0o600
        assert await store.pragma("journal_mode") == "wal"
        assert await store.pragma("synchronous") == 2  # FULL
        assert await store.pragma("foreign_keys") == 1
        assert 0 < await store.pragma("busy_timeout") < 3000
        assert store.schema_version == await store.pragma("user_version") == len(
            migration_files())


async def test_an_old_database_is_upgraded_and_keeps_its_games(db_path: Path) -> None:
    async with await Store.open(db_path, upto=1) as old:
        assert old.schema_version == 1
    # What the first version of the bot wrote, in its own words.
    with sqlite3.connect(db_path) as db:
        db.execute("INSERT INTO games (id, kind, options, status, channel_id, host_id,"
                   " guild_id, created_at, updated_at)"
                   " VALUES (1, 'kids', '{\"level\": \"2\"}', 'lobby', 8, 9, 7, 1, 1)")
        db.execute("INSERT INTO seats (game_id, seat, user_id, name) VALUES (1, 0, 9, 'Host')")
    db.close()
    gid = 1
    async with await Store.open(db_path) as new:
        assert new.schema_version == len(migration_files()) >= 2
        rec = await new.games.load_game(gid)
        assert rec is not None and rec.options == {"level": "2"} and rec.on_leave == "skip"
        assert rec.seats == [Seat(0, 9, "Host")]
        await new.games.save_guild_settings(GuildSettings(7, turn_timer=60.0))
        assert (await new.games.guild_settings(7)).turn_timer == 60.0
    async with await Store.open(db_path) as again:  # nothing applied twice
        assert again.schema_version == len(migration_files())


async def test_one_active_lobby_per_channel_in_the_database_too(store: Store) -> None:
    args = ("dice", {}, 1, 42, 5, [Seat(0, 5, "A")])
    assert await store.games.create_lobby(*args, lobby_deadline=None, on_leave="skip", now=0)
    assert await store.games.create_lobby(*args, lobby_deadline=None, on_leave="skip",
                                    now=0) is None


async def test_a_failed_transaction_takes_no_other_games_writes_with_it(
    store: Store,
) -> None:
    ids = []
    for ch in range(20):
        gid = await store.games.create_lobby("kids", {}, 1, ch, 5, [Seat(0, 5, "A")],
                                       lobby_deadline=None, on_leave="skip", now=0)
        assert gid is not None
        ids.append(gid)

    async def moves(gid: int) -> None:
        for ply in range(10):
            await store.games.record(gid, [(ply, 0, f"m{ply}")], {"ply": ply}, now=0,
                               turn_deadline=None)

    async def bad() -> None:
        await store.games.record(ids[0], [(0, 0, "again")], {"x": 1}, now=0, turn_deadline=None)

    results = await asyncio.gather(*(moves(g) for g in ids[1:]), bad(), moves(ids[0]),
                                   return_exceptions=True)
    errors = [r for r in results if isinstance(r, BaseException)]
    # Either the bad write or game 0's own ply 0 lost the race for ply 0; nothing else.
    assert len(errors) == 1 and isinstance(errors[0], IntegrityError)
    for gid in ids[1:]:
        assert [a for _, _, a, _ in await store.games.history(gid)] == [f"m{p}" for p in range(10)]


async def test_stats_and_leaderboard_per_kind_and_per_server(store: Store) -> None:
    async def finished(kind: str, guild: int, channel: int, winner: int) -> None:
        seats = [Seat(0, 1, "Ann"), Seat(1, 2, "Bob"),
                 Seat(2, None, "Computer 1", "easy")]
        gid = await store.games.create_lobby(kind, {}, guild, channel, 1, seats,
                                       lobby_deadline=None, on_leave="skip", now=0)
        assert gid is not None
        results = [ResultRecord(s.index, s.user_id, s.level, s.name, s.index,
                                "win" if s.index == winner else "loss", False) for s in seats]
        await store.games.record(gid, [], {}, now=1, turn_deadline=None, results=results)

    await finished("kids", 10, 1, winner=0)
    await finished("kids", 10, 2, winner=0)
    await finished("dice", 10, 3, winner=1)
    await finished("dice", 20, 4, winner=2)
    ann = await store.standings.stats(1)
    assert (ann.games, ann.wins, ann.losses) == (4, 2, 2) and ann.win_rate == 0.5
    assert ann.per_kind["kids"].wins == 2 and ann.per_kind["dice"].wins == 0
    assert (await store.standings.stats(1, guild_id=20)).games == 1
    assert (await store.standings.stats(2, kind="dice")).wins == 1
    board = await store.standings.leaderboard(10)
    assert [(r.name, r.wins, r.games) for r in board] == [("Ann", 2, 3), ("Bob", 1, 3)]
    assert [r.name for r in await store.standings.leaderboard(None, kind="dice")] == ["Bob", "Ann"]


async def test_names_are_data_never_sql(store: Store) -> None:
    evil = "Robert'); DROP TABLE games;--"
    gid = await store.games.create_lobby("kids", {}, 1, 1, 5, [Seat(0, 5, evil)],
                                   lobby_deadline=None, on_leave="skip", now=0)
    rec = await store.games.load_game(gid or 0)
    assert rec is not None and rec.seats[0].name == evil


def test_migrations_are_numbered_without_gaps() -> None:
    numbers = [n for n, _ in migration_files()]
    assert numbers == list(range(1, len(numbers) + 1))


async def test_a_database_of_a_newer_bot_is_refused_and_left_untouched(db_path: Path) -> None:
    async with await Store.open(db_path) as store:
        known = store.schema_version
    newer = known + 2
    with sqlite3.connect(db_path) as db:
        db.execute("PRAGMA journal_mode = DELETE")  # as a newer bot might leave it
        db.execute(f"PRAGMA user_version = {newer}")
    db.close()
    before = db_path.read_bytes()
    with pytest.raises(SchemaTooNew) as info:
        await Store.open(db_path)
    assert isinstance(info.value, StoreError)
    assert str(info.value) == (
        f"the database at {db_path} is at schema version {newer} but this code knows only "
        f"up to {known}: upgrade the bot, or restore a backup")
    assert db_path.read_bytes() == before
    assert not db_path.with_name(db_path.name + "-wal").exists()


async def test_the_owners_share_one_connection(store: Store) -> None:
    """The game log and the standings, and the rows the Discord side keeps in the same
    database (``Store.rows``: its layouts here)."""
    gid = await store.games.create_lobby("kids", {}, 1, 3, 5, [Seat(0, 5, "A")],
                                         lobby_deadline=None, on_leave="skip", now=0)
    assert gid is not None
    layout = Layout(store.rows)
    await layout.save_table_manners(TableManners(1, own_thread=True))
    assert await layout.thread_guilds() == {1}
    assert (await store.standings.stats(5)).games == 0
    assert isinstance(store.games, GameLog) and isinstance(store.standings, Standings)


async def _synchronous(db: Tx) -> int:
    row = await db.fetchone("PRAGMA synchronous")
    assert row is not None
    return int(row[0])


async def test_a_hint_is_committed_without_an_fsync_and_nothing_else_is(db_path: Path) -> None:
    """``durable=False`` (a row saying what a message shows) skips the commit's fsync
    (synchronous NORMAL, 1); a write beside it in the same group commit makes the batch
    durable (FULL, 2), and the connection is FULL again after every hint."""
    async with await Store.open(db_path) as store:
        assert await store.rows.write(_synchronous, durable=False) == 1
        assert await store.pragma("synchronous") == 2
        assert await store.rows.write(_synchronous) == 2
        together = await asyncio.gather(store.rows.write(_synchronous, durable=False),
                                        store.rows.write(_synchronous))
        assert together == [2, 2]
        assert await store.pragma("synchronous") == 2


async def test_a_failed_hint_leaves_the_connection_durable(db_path: Path) -> None:
    async def broken(db: Tx) -> None:
        await db.execute("INSERT INTO no_such_table VALUES (1)")

    async with await Store.open(db_path) as store:
        with pytest.raises(sqlite3.OperationalError):
            await store.rows.write(broken, durable=False)
        assert await store.pragma("synchronous") == 2
        assert await store.rows.write(_synchronous) == 2


HINT_THEN_KILLED = """
import asyncio, os, signal, sys
from store import Store

async def main(path):
    store = await Store.open(path)
    async def hint(db):
        await db.execute("INSERT INTO dm_doors (user_id, dm_channel, updated_at)"
                         " VALUES (7, 70, 0)")
    await store.rows.write(hint, durable=False)
    os.kill(os.getpid(), signal.SIGKILL)  # no close, no checkpoint: killed

asyncio.run(main(sys.argv[1]))
"""


async def test_a_hint_outlives_the_process_that_wrote_it(db_path: Path) -> None:
    """What a hint needs: once its write returned, killing the process loses nothing (the
    commit is in the WAL, in the operating system's hands, for the next process)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HINT_THEN_KILLED, str(db_path),
        cwd=str(Path(__file__).resolve().parents[2]))
    assert await proc.wait() == -signal.SIGKILL
    async with await Store.open(db_path) as store:
        row = await store.rows.fetchone("SELECT dm_channel FROM dm_doors WHERE user_id = 7")
    assert row is not None and row[0] == 70
