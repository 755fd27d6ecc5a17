"""Closing the manager (the bot's SIGTERM) lets a move being saved finish first, and cuts
the computer players, even one still telling the end of the game it just won."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from manager import GameManager, GameOver, ManualClock, Store
from manager.events import Event

from .conftest import ANN, CHANNEL, GUILD, OpenStore, make_manager


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


class SlowEnd:
    """A listener that takes its time over a game's end (the bot drawing a long Dice game's
    replay and sending it): it waits until it is cut."""

    def __init__(self) -> None:
        self.telling, self.cut = asyncio.Event(), asyncio.Event()
        self.done, self.release = asyncio.Event(), asyncio.Event()

    async def on_event(self, event: Event) -> None:
        if isinstance(event, GameOver):
            self.telling.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cut.set()
                raise
            self.done.set()


async def two_computers_play_to_the_end(manager: GameManager) -> None:
    lobby = await manager.create_lobby("dice", {}, ANN, GUILD, CHANNEL, on_leave="computer")
    await manager.add_computer(lobby.game_id, ANN.user_id, "easy")
    game = (await manager.start_game(lobby.game_id, ANN.user_id)).game_id
    await manager.leave_game(game, ANN.user_id)


async def test_close_cuts_a_computer_still_telling_the_end_of_the_game_it_won(
        open_store: OpenStore, clock: ManualClock) -> None:
    """The computer whose move ends a game tells the end itself, after it let its game
    go: close cut every computer but that one, which went on telling after the bot had
    closed Discord's session ("listener Desk failed on GameOver: Session is closed", a
    fresh-clone run of the kill test)."""
    store = await open_store()
    manager = make_manager(store, clock)
    end = SlowEnd()
    manager.add_listener(end)
    await manager.start(run_timers=False)
    await two_computers_play_to_the_end(manager)
    await asyncio.wait_for(end.telling.wait(), 60)
    await asyncio.wait_for(manager.close(), 10)
    assert end.cut.is_set(), "close returned with the end still being told"
    await store.close()


async def test_settle_waits_for_the_end_a_computer_is_telling(
        open_store: OpenStore, clock: ManualClock) -> None:
    """``settle`` (the demo, tests) returns once the computers are done, the end of the
    game one of them won told too."""
    store = await open_store()
    manager = make_manager(store, clock)
    end = SlowEnd()
    manager.add_listener(end)
    await manager.start(run_timers=False)
    await two_computers_play_to_the_end(manager)
    await asyncio.wait_for(end.telling.wait(), 60)
    settling = asyncio.create_task(manager.settle())
    for _ in range(20):
        await asyncio.sleep(0)
    assert not settling.done(), "settle returned while the end was still being told"
    end.release.set()
    await asyncio.wait_for(settling, 10)
    assert end.done.is_set()
    await manager.close()
    await store.close()
