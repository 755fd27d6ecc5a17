"""Closing the manager (the bot's SIGTERM) lets a move being saved finish first."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine.manager import ManualClock, Store

from .conftest import ANN, CHANNEL, GUILD, make_manager


async def test_close_waits_for_a_computer_move_being_saved(
        db_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    store = await Store.open(db_path)
    manager = make_manager(store, clock)
    await manager.start(run_timers=False)
    table = await manager.create_lobby("dice", {}, ANN, GUILD, CHANNEL)
    await manager.add_computer(table.game_id, ANN.user_id, "easy")
    saving, saved = asyncio.Event(), asyncio.Event()
    record = store.games.record

    async def slow_record(*args: Any, **kwargs: Any) -> None:
        saving.set()
        await asyncio.sleep(0.3)  # a slow disk: close arrives in the middle
        await record(*args, **kwargs)
        saved.set()

    monkeypatch.setattr(store.games, "record", slow_record)
    await manager.start_game(table.game_id, ANN.user_id)
    view = manager.get(table.game_id)
    ann = None  # Ann's roll first, if she is first to move: then the computer's
    if view.turn is not None and view.seats[view.turn].user_id == ANN.user_id:
        ann = asyncio.create_task(manager.submit(table.game_id, ANN.user_id, "roll"))
    await asyncio.wait_for(saving.wait(), 5)
    await asyncio.wait_for(manager.close(), 10)
    assert saved.is_set(), "close returned before the move being saved was saved"
    if ann is not None:
        await ann
    ply = manager.get(table.game_id).ply
    await asyncio.wait_for(store.close(), 10)

    store = await Store.open(db_path)
    again = make_manager(store, clock)
    await again.start(run_timers=False, resume=False)
    assert again.get(table.game_id).ply == ply >= 1, "what the players saw is what was kept"
    await again.close()
    await store.close()
