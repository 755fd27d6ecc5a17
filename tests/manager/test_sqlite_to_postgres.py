"""Moving a bot from SQLite to PostgreSQL: a game half played on SQLite is copied and
finished on PostgreSQL; results and settings come along; a non-empty target is refused."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cogs.table.manners import Layout, TableManners
from manager import GameOver, ManualClock, Store
from tools.sqlite_to_postgres import CopyRefused, copy

from .conftest import BOB, CAT, CHANNEL, GUILD, Recorder, make_manager, play_out, two_player_game


async def test_a_game_half_played_on_sqlite_is_finished_on_postgres(
    db_path: Path, postgres_url: str, clock: ManualClock
) -> None:
    store = await Store.open(db_path)
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    await m.set_guild_settings(GUILD, turn_timer=120, defaults={"dice": {"sequence_length": 5}})
    await Layout(store.rows).save_table_manners(TableManners(GUILD, own_thread=True), now=5)
    done = await two_player_game(m, "dice", channel=CHANNEL + 1)
    await play_out(m, done, random.Random(1))  # a finished game: results to copy
    gid = await two_player_game(m, "kids")
    rng = random.Random(3)
    for _ in range(9):
        view = m.get(gid)
        assert view.turn is not None
        user = view.seats[view.turn].user_id
        assert user is not None
        await m.submit(gid, user, rng.choice(m.observation_for(gid, user)["legal"]))
    await m.create_lobby("dice", {}, CAT, GUILD, CHANNEL + 2)  # an open lobby too
    state, view = m.game_state(gid), m.get(gid)
    bob_before = await store.standings.stats(BOB.user_id)
    await m.close()
    await store.close()

    copied = await copy(db_path, postgres_url)
    assert copied["games"] == 3 and copied["results"] == 2 and copied["actions"] > 9
    assert copied["guild_settings"] == copied["guild_table_manners"] == 1

    store = await Store.connect(postgres_url)
    m = make_manager(store, clock)
    rec = Recorder()
    m.add_listener(rec)
    await m.start(run_timers=False)
    assert m.game_state(gid) == state and m.get(gid) == view
    assert m.table_for_channel(CHANNEL + 2) is not None
    assert (await store.standings.stats(BOB.user_id)) == bob_before
    assert (await store.games.guild_settings(GUILD)).turn_timer == 120
    assert (await Layout(store.rows).table_manners(GUILD)).own_thread
    await play_out(m, gid, rng)
    over = rec.of(GameOver)
    assert len(over) == 1 and over[0].game_id == gid
    assert (await store.standings.stats(BOB.user_id)).games == bob_before.games + 1
    fresh = await two_player_game(m, "kids", channel=CHANNEL + 3)
    assert fresh > gid  # new ids go on after the copied ones
    await m.close()
    await store.close()


async def test_the_copy_refuses_a_database_that_already_has_games(
    db_path: Path, postgres_url: str, clock: ManualClock
) -> None:
    store = await Store.open(db_path)
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    await two_player_game(m)
    await m.close()
    await store.close()
    await copy(db_path, postgres_url)
    with pytest.raises(CopyRefused, match="is not empty"):
        await copy(db_path, postgres_url)
    with pytest.raises(CopyRefused, match="no SQLite database"):
        await copy(db_path.with_name("missing.sqlite3"), postgres_url)
