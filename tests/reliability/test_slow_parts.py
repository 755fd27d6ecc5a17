"""A render or a database write that takes seconds: clicks are still acknowledged in time
(the fake refuses an answer after Discord's 3 s), and other games do not wait for it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import cogs.table.pictures
from store import GameLog
from store.connection import Connection

from .harness import board_messages, unhandled_lines
from .players import Player
from .rig import Rig, make_rig
from .truth import GameTruth

SLOW = 3.5  # seconds: longer than Discord's 3 s deadline for a first answer


@pytest.fixture
async def two_tables(tmp_path: Path) -> AsyncIterator[Rig]:
    async for r in make_rig(tmp_path, channels=("general", "other")):
        yield r


async def both_started(rig: Rig) -> tuple[GameTruth, GameTruth]:
    other = rig.guild.channel_ids[1]
    a = await rig.start(await rig.lobby("kids", "Alice", "Bob"), "Alice")
    b = await rig.start(await rig.lobby("kids", "Carol", "Dan", channel=other), "Carol", other)
    return a, b


def mover(rig: Rig, game: GameTruth) -> Player:
    g = rig.games()[game.id]
    person = rig.fake.people[g.user_of(g.replayed().current_seat)]  # type: ignore[index]
    return Player(person, rig.ledger, timeout=SLOW + 5)


async def test_a_slow_board_picture_delays_neither_the_ack_nor_another_game(
        two_tables: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = two_tables
    a, b = await both_started(rig)
    draw = cogs.table.pictures.board_png
    # Held until the test lets go, and at least SLOW seconds: how long game B's move takes
    # on a busy machine does not decide what the test sees.
    drawn = threading.Event()

    def slow_for_alice(obs: dict[str, Any], **kwargs: Any) -> bytes:
        if "Alice" in (kwargs.get("names") or []):
            drawn.wait(30)  # in the worker thread, as Pillow would be
        return draw(obs, **kwargs)

    monkeypatch.setattr(cogs.table.pictures, "board_png", slow_for_alice)
    boards_a = len(board_messages(rig.fake, a.channel_id))
    started = time.monotonic()
    move_a = asyncio.create_task(mover(rig, a).take_turn(rig.games()[a.id]))
    await rig.fake.wait_for(lambda: len(rig.games()[a.id].actions) == 1, 5, "A's move commit")
    assert await mover(rig, b).take_turn(rig.games()[b.id]), "game B moves meanwhile"
    assert len(board_messages(rig.fake, a.channel_id)) == boards_a, "A's board still drawing"
    await asyncio.sleep(max(0.0, SLOW - (time.monotonic() - started)))
    drawn.set()
    assert await move_a, "A's move was acknowledged in time and then confirmed"
    assert all(i.acknowledged for i in rig.fake.interactions.values())
    await rig.settled(a.channel_id)
    assert rig.problems(a.channel_id) == [] and rig.problems(b.channel_id) == []


async def test_a_slow_database_write_delays_neither_the_ack_nor_another_game(
        two_tables: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = two_tables
    a, b = await both_started(rig)
    record = GameLog.record
    stalled = asyncio.Event()  # held until the test lets go, and at least SLOW seconds
    writing = asyncio.Event()  # A's move reached the stalled disk

    async def slow_record(self: GameLog, game_id: int, *args: Any, **kwargs: Any) -> Any:
        if game_id == a.id:
            writing.set()
            await asyncio.wait_for(stalled.wait(), 30)  # a disk that stalls for this game
        return await record(self, game_id, *args, **kwargs)

    monkeypatch.setattr(GameLog, "record", slow_record)
    started = time.monotonic()
    move_a = asyncio.create_task(mover(rig, a).take_turn(rig.games()[a.id]))
    await asyncio.wait_for(writing.wait(), 10)
    assert await mover(rig, b).take_turn(rig.games()[b.id]), "game B moves meanwhile"
    assert len(rig.games()[a.id].actions) == 0, "A's move is not committed yet"
    await asyncio.sleep(max(0.0, SLOW - (time.monotonic() - started)))
    stalled.set()
    assert await move_a
    assert len(rig.games()[a.id].actions) == 1
    assert all(i.acknowledged for i in rig.fake.interactions.values())
    await rig.settled(a.channel_id)
    await rig.settled(b.channel_id)
    assert rig.problems(a.channel_id) == [] and rig.problems(b.channel_id) == []


async def test_a_stalled_sqlite_writer_still_lets_every_click_be_acknowledged(
        two_tables: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    """One SQLite writer: a write that hangs holds every game's commit (by design), but
    each click is deferred first, so none misses Discord's deadline."""
    rig = two_tables
    a, b = await both_started(rig)
    write = Connection.write
    stalls = [SLOW]

    async def stalled(self: Connection, work: Any, *, durable: bool = True) -> Any:
        def slow_work(db: Any) -> Any:
            if stalls:
                time.sleep(stalls.pop())  # inside the writer thread and the store's lock
            return work(db)

        return await write(self, slow_work, durable=durable)

    monkeypatch.setattr(Connection, "write", stalled)
    moves = [asyncio.create_task(mover(rig, g).take_turn(rig.games()[g.id])) for g in (a, b)]
    assert all(await asyncio.gather(*moves))
    assert all(i.acknowledged for i in rig.fake.interactions.values())
    await rig.settled(a.channel_id)
    await rig.settled(b.channel_id)
    assert rig.problems(a.channel_id) == [] and rig.problems(b.channel_id) == []


async def test_ending_a_game_while_its_last_move_is_announced_logs_no_error(
        two_tables: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand queued before the game ended is not sent, and nothing fails (fixed in
    667b45d after this test showed 'listener failed on HandChanged' no_such_game)."""
    rig = two_tables
    a, _ = await both_started(rig)
    draw = cogs.table.pictures.board_png

    def slow(obs: dict[str, Any], **kwargs: Any) -> bytes:
        time.sleep(1.0)
        return draw(obs, **kwargs)

    monkeypatch.setattr(cogs.table.pictures, "board_png", slow)
    move = asyncio.create_task(mover(rig, a).take_turn(rig.games()[a.id]))
    await rig.fake.wait_for(lambda: len(rig.games()[a.id].actions) == 1, 5, "the commit")
    reply = await (await rig["Alice"].slash("sequence end")).reply()
    assert reply.ephemeral
    await move
    await rig.fake.wait_for(lambda: rig.games()[a.id].status == "cancelled", 5, "ended")
    # the end is told last, after what the move queued before it
    await rig.fake.wait_for(lambda: any("The game was ended by" in m.content for m in
                                        rig.fake.visible_messages(a.channel_id)), 10,
                            "the end told, after the move's own announcements")
    assert unhandled_lines(rig.log.text) == []
