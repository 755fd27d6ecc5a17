"""Restarts: games come back exactly as committed; a snapshot that disagrees with its log
is reported loudly and the log wins; computer games go on by themselves."""

from __future__ import annotations

import json
import logging
import random

import pytest

from manager import GameOver, ManualClock
from store.backend import Tx

from .conftest import ANN, CHANNEL, GUILD, OpenStore, Recorder, make_manager, two_player_game


async def test_a_game_in_play_comes_back_exactly(open_store: OpenStore, clock: ManualClock) -> None:
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    gid = await two_player_game(m, "kids")
    rng = random.Random(2)
    for _ in range(7):
        view = m.get(gid)
        assert view.turn is not None
        user = view.seats[view.turn].user_id
        assert user is not None
        await m.submit(gid, user, rng.choice(m.observation_for(gid, user)["legal"]))
    state, view = m.game_state(gid), m.get(gid)
    await m.close()
    await store.close()

    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    # Board, hands, deck order, RNG, turn: to_dict covers all of it.
    assert m.game_state(gid) == state and m.get(gid) == view
    await m.close()
    await store.close()


async def test_a_snapshot_that_disagrees_with_the_log_loses_loudly(
    open_store: OpenStore, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    gid = await two_player_game(m, "dice")
    view = m.get(gid)
    assert view.turn is not None
    user = view.seats[view.turn].user_id
    assert user is not None
    await m.submit(gid, user, "roll")
    truth = m.game_state(gid)
    await m.close()
    await store.close()

    store = await open_store()
    bad = dict(truth, chips=[1, 2])

    async def corrupt(tx: Tx) -> None:  # a snapshot corrupted behind the manager's back
        await tx.execute("UPDATE games SET snapshot = ? WHERE id = ?", (json.dumps(bad), gid))

    await store.database.write(corrupt)
    m = make_manager(store, clock)
    with caplog.at_level(logging.ERROR):
        await m.start(run_timers=False, resume=False)
    assert "does not match its action log" in caplog.text
    assert m.game_state(gid) == truth
    rec = await store.games.load_game(gid)
    assert rec is not None and rec.snapshot == truth  # written back: they agree again
    await m.close()
    await store.close()


async def test_a_computer_game_resumes_after_a_restart_and_finishes(
    open_store: OpenStore, clock: ManualClock
) -> None:
    store = await open_store()
    m = make_manager(store, clock)
    await m.start(run_timers=False)
    lobby = await m.create_lobby("dice", {}, ANN, GUILD, CHANNEL, on_leave="computer")
    await m.add_computer(lobby.game_id, ANN.user_id, "easy")
    gid = (await m.start_game(lobby.game_id, ANN.user_id)).game_id
    await m.leave_game(gid, ANN.user_id)  # now two computers play on their own
    await m.close()  # stops them mid-game
    await store.close()

    store = await open_store()
    m = make_manager(store, clock)
    rec = Recorder()
    m.add_listener(rec)
    await m.start(run_timers=False)
    await m.settle()
    over = rec.of(GameOver)
    assert len(over) == 1 and over[0].game_id == gid
    assert m.table_for_channel(CHANNEL) is None
    await m.close()
    await store.close()
