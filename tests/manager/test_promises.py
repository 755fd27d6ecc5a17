"""A promise to announce is kept only once what it promised was told (issue 32, item 3).

With several processes every change promises its announcements (``deliveries``), and the
promise goes once the game's queue of events has been told (``Outbox`` -> ``delivered``).
Two gaps let a move be stored and never shown: a change made while the queue was being
marked told left its events in the queue, never told until the game's next change (its
own flush had returned at once, counting on the one under way); and the mark deleted that
change's promise with the older ones, so a process that died then owed nothing, and the
move was never shown by anyone. Now the flush tells what came meanwhile too, and a promise
is deleted only as far as the game was told (``through_ply``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from manager import GameManager, ManualClock, Store
from manager.events import Event
from manager.outbox import Outbox
from store.postgres import PostgresDatabase
from store.shared import SharedGames

from .conftest import ANN, BOB, GUILD, make_manager
from .test_sharing import Hangs

CHANNEL = 930


class Said:
    def __init__(self) -> None:
        self.events: list[Event] = []

    async def on_event(self, event: Event) -> None:
        self.events.append(event)


def event(ply: int) -> Any:
    """An event of a table at ``ply`` (what the outbox reads of it: its game and ply)."""

    class Table:
        game_id = 1

    Table.ply = ply  # type: ignore[attr-defined]

    class Told:
        table = Table
        game_id = 1

    return Told()


async def test_events_queued_while_the_last_ones_are_marked_told_are_told_too() -> None:
    outbox = Outbox()
    said = Said()
    outbox.add_listener(said)
    later = event(2)
    marks: list[int | None] = []

    async def mark(game_id: int, through: int | None) -> None:
        marks.append(through)
        if len(marks) == 1:
            # a change made now, in another task (a computer's move, say), queues its
            # events and flushes: that flush returns at once, counting on this one
            async def change() -> None:
                outbox.queue(game_id, later)
                await outbox.flush(game_id)

            await asyncio.create_task(change())

    outbox.when_emptied(mark)
    outbox.queue(1, event(1))
    await outbox.flush(1)
    assert said.events[-1] is later, "told by the flush under way, not left in the queue"
    assert marks == [1, 2], "each marked as far as it was told"
    assert not outbox.busy(1)


async def test_a_promise_is_kept_only_by_telling_the_game_through_its_moves(
        postgres_url: str, clock: ManualClock) -> None:
    store = await Store.connect(postgres_url)
    manager: GameManager = make_manager(store, clock)
    await manager.start(run_timers=False)
    hangs = Hangs()
    manager.add_listener(hangs)
    try:
        lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
        await manager.join(lobby.game_id, BOB)
        await manager.start_game(lobby.game_id, ANN.user_id)
        gid = lobby.game_id
        view = manager.get(gid)
        user = view.seats[view.turn].user_id  # type: ignore[index]
        assert user is not None
        action = next(a for a in manager.observation_for(gid, user)["legal"] if "@" in a)
        move = asyncio.create_task(manager.submit(gid, user, action))
        await asyncio.wait_for(hangs.reached.wait(), 10)  # committed, being told
        db = store.database
        assert isinstance(db, PostgresDatabase)
        owner = db.session
        row = await db.pool.fetchrow("SELECT from_ply, through_ply FROM deliveries"
                                     " WHERE game_id = $1 AND owner = $2", gid, owner)
        assert row is not None and (row[0], row[1]) == (view.ply, view.ply + 1)
        shared = SharedGames(db)
        await shared.delivered(gid, owner, view.ply)  # told as far as before the move
        assert await db.pool.fetchval("SELECT count(*) FROM deliveries WHERE game_id = $1",
                                      gid) == 1, "kept: the move is not told yet"
        await shared.delivered(gid, owner, view.ply + 1)
        assert await db.pool.fetchval("SELECT count(*) FROM deliveries WHERE game_id = $1",
                                      gid) == 0
        move.cancel()
        await asyncio.gather(move, return_exceptions=True)
    finally:
        await manager.close()
        await store.close()
