"""The PostgreSQL store's own rules: numbered migrations twinned with SQLite's, applied once
even when several processes start together, an older database upgraded, a newer one
refused untouched; and ``open_store`` choosing the backend from the settings."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from store import (
    MIGRATIONS,
    POSTGRES_MIGRATIONS,
    GuildSettings,
    SchemaTooNew,
    Seat,
    Store,
    StoreError,
    migration_files,
    open_store,
    redacted,
)
from tests.waiting import until


def test_both_backends_have_the_same_numbered_migrations() -> None:
    sqlite_names = [p.name for _, p in migration_files(MIGRATIONS)]
    postgres_names = [p.name for _, p in migration_files(POSTGRES_MIGRATIONS)]
    assert sqlite_names == postgres_names


async def test_both_backends_end_with_the_same_tables_and_columns(
    tmp_path: Path, postgres_url: str
) -> None:
    async with await Store.open(tmp_path / "twin.sqlite3"):
        pass
    with sqlite3.connect(tmp_path / "twin.sqlite3") as lite:
        tables = [r[0] for r in lite.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        in_sqlite = {t: [r[1] for r in lite.execute(f"PRAGMA table_info({t})")]
                     for t in tables}
        sqlite_indexes = {r[0] for r in lite.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}
    lite.close()
    async with await Store.connect(postgres_url) as store:
        assert store.backend == "postgres"
        assert store.schema_version == len(migration_files(POSTGRES_MIGRATIONS))
        rows = await store.database.fetchall(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = 'public' AND table_name <> 'schema_version'"
            " ORDER BY table_name, ordinal_position")
        indexes = await store.database.fetchall(
            "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'"
            " AND indexname NOT LIKE '%_pkey'")
    in_postgres: dict[str, list[str]] = {}
    for table, column in rows:
        in_postgres.setdefault(table, []).append(column)
    assert in_postgres == in_sqlite
    assert {r[0] for r in indexes} == sqlite_indexes


async def test_four_processes_starting_at_once_migrate_the_database_once(
    postgres_url: str,
) -> None:
    # Four pools are four server sessions, as four bot processes would be: without the
    # advisory lock they would each try to create the same tables.
    stores = await asyncio.gather(*(Store.connect(postgres_url) for _ in range(4)))
    try:
        known = len(migration_files(POSTGRES_MIGRATIONS))
        assert [s.schema_version for s in stores] == [known] * 4
        assert await stores[0].database.fetchall("SELECT version FROM schema_version") == [
            (known,)]
        gid = await stores[1].games.create_lobby("kids", {}, 1, 2, 3, [Seat(0, 3, "A")],
                                                 lobby_deadline=None, on_leave="skip", now=0)
        assert gid is not None and (await stores[2].games.load_game(gid)) is not None
    finally:
        for s in stores:
            await s.close()


async def test_an_old_postgres_database_is_upgraded_and_keeps_its_games(
    postgres_url: str,
) -> None:
    async with await Store.connect(postgres_url, upto=1) as old:
        assert old.schema_version == 1
    # What the first version of the bot wrote, in its own words.
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute(
            "INSERT INTO games (id, kind, options, status, channel_id, host_id, guild_id,"
            " created_at, updated_at) VALUES (1, 'kids', '{\"level\": \"2\"}', 'lobby',"
            " 8, 9, 7, 1, 1)")
        await conn.execute("INSERT INTO seats (game_id, seat, user_id, name)"
                           " VALUES (1, 0, 9, 'Host')")
    finally:
        await conn.close()
    async with await Store.connect(postgres_url) as new:
        assert new.schema_version == len(migration_files(POSTGRES_MIGRATIONS)) >= 2
        rec = await new.games.load_game(1)
        assert rec is not None and rec.options == {"level": "2"} and rec.on_leave == "skip"
        assert rec.seats == [Seat(0, 9, "Host")]
        await new.games.save_guild_settings(GuildSettings(7, turn_timer=60.0))
        assert (await new.games.guild_settings(7)).turn_timer == 60.0
    async with await Store.connect(postgres_url) as again:  # nothing applied twice
        assert again.schema_version == len(migration_files(POSTGRES_MIGRATIONS))


async def test_a_postgres_database_of_a_newer_bot_is_refused_and_left_untouched(
    postgres_url: str,
) -> None:
    async with await Store.connect(postgres_url) as store:
        known = store.schema_version
    newer = known + 2
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute("UPDATE schema_version SET version = $1", newer)
        before = await conn.fetch("SELECT table_name, column_name FROM"
                                  " information_schema.columns WHERE table_schema = 'public'"
                                  " ORDER BY 1, 2")
        with pytest.raises(SchemaTooNew) as info:
            await Store.connect(postgres_url)
        assert isinstance(info.value, StoreError)
        assert str(info.value) == (
            f"the database at {postgres_url} is at schema version {newer} but this code"
            f" knows only up to {known}: upgrade the bot, or restore a backup")
        assert await conn.fetchval("SELECT version FROM schema_version") == newer
        assert await conn.fetch("SELECT table_name, column_name FROM"
                                " information_schema.columns WHERE table_schema = 'public'"
                                " ORDER BY 1, 2") == before
    finally:
        await conn.close()


async def test_database_url_wins_and_then_no_sqlite_file_is_created(
    tmp_path: Path, postgres_url: str
) -> None:
    path = tmp_path / "data" / "sequence.sqlite3"
    async with await open_store(postgres_url, path) as store:
        assert store.backend == "postgres"
        with pytest.raises(StoreError):
            _ = store.path
    assert not path.exists() and not path.parent.exists()
    for unset in (None, ""):
        async with await open_store(unset, path) as store:
            assert store.backend == "sqlite" and store.path == path
        assert path.exists()


def test_a_password_never_reaches_a_message() -> None:
    assert redacted("postgresql://bot:s3cret@db.internal:5432/seq") == (
        "postgresql://bot@db.internal:5432/seq")
    assert redacted("postgresql://bot@127.0.0.1:5432/seq") == "postgresql://bot@127.0.0.1:5432/seq"


LOCK_KEY = (0x7E57, 42)


async def _last_query_of(url: str, pid: int) -> str:
    other = await asyncpg.connect(url)
    try:
        return str(await other.fetchval(
            "SELECT query FROM pg_stat_activity WHERE pid = $1", pid))
    finally:
        await other.close()


async def test_a_pooled_connection_still_holding_a_lock_lets_it_go_on_its_way_back(
    postgres_url: str
) -> None:
    from store.postgres import PostgresDatabase

    db = await PostgresDatabase.connect(postgres_url, min_size=1, max_size=1)
    try:
        async with db.pool.acquire() as conn:  # (its unlock never said: a task cancelled)
            await db.locks.lock(conn, *LOCK_KEY)
            pid = conn.get_server_pid()
        other = await asyncpg.connect(postgres_url)
        try:
            assert await other.fetchval("SELECT pg_try_advisory_lock($1, $2)", *LOCK_KEY)
        finally:
            await other.close()
        assert "pg_advisory_unlock_all" in await _last_query_of(postgres_url, pid)
    finally:
        await db.close()


async def test_a_pooled_connection_that_let_its_lock_go_returns_without_a_reset(
    postgres_url: str
) -> None:
    from store.postgres import PostgresDatabase
    from store.session_locks import UNLOCK_TWO

    db = await PostgresDatabase.connect(postgres_url, min_size=1, max_size=1)
    try:
        async with db.pool.acquire() as conn:
            await db.locks.lock(conn, *LOCK_KEY)
            await db.locks.unlock(conn, *LOCK_KEY)
            pid = conn.get_server_pid()
        # the last thing the connection's session did was the unlock: no round trip more
        assert await _last_query_of(postgres_url, pid) == UNLOCK_TWO
        async with db.pool.acquire() as again:  # and the same session serves the next use
            assert again.get_server_pid() == pid
    finally:
        await db.close()


async def test_a_connect_cancelled_at_any_moment_leaves_no_unread_error_and_no_session(
        postgres_url: str) -> None:
    """A clean stop cancels whatever is connecting. asyncpg, cancelled between its socket
    opening and the server's first answer, leaves a future with an exception nobody reads
    (a fresh-clone CI run failed on that line in a stopping bot's log): the store's connects
    are let finish and closed instead, whichever moment the cancellation comes."""
    import gc

    from store.postgres import PostgresDatabase, connect_whole

    loop = asyncio.get_running_loop()
    unread: list[str] = []
    before = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: unread.append(str(context["message"])))
    admin = await asyncpg.connect(postgres_url)
    sessions = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
    try:
        alone = await admin.fetchval(sessions)
        for steps in range(12):  # (the window: 4 and 5 turns of the loop in, here)
            for connecting in (lambda: connect_whole(postgres_url),
                               lambda: PostgresDatabase.connect(postgres_url)):
                attempt = asyncio.ensure_future(connecting())
                for _ in range(steps):
                    await asyncio.sleep(0)
                attempt.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    made = await attempt
                    await made.close()
                gc.collect()  # (an unread exception is told when its future is collected)
                await asyncio.sleep(0)
                assert unread == [], f"cancelled {steps} turns of the loop in"

        async def back_to_alone() -> bool:
            return bool(await admin.fetchval(sessions) == alone)

        await until(back_to_alone, "the sessions of the cancelled connects gone")
    finally:
        loop.set_exception_handler(before)
        await admin.close()
