"""What the manager and the store tell whoever watches the bot (its metrics), with no
metrics library below the runtime: where a person's move came from (``Moved.via``), the
chores claimed (``GameManager.tally``), every transaction of the store's owners with its
errors (``Store.watch``), and whether the database answers now (``Store.ping``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from manager import GameManager, ManualClock, Moved, Seat, Store
from store import IntegrityError, StoreUnavailable
from tests.sqlite_lock import another_program_holds_the_write_lock

from .conftest import ANN, CHANNEL, GUILD, Recorder, two_player_game


async def test_a_persons_move_carries_where_it_came_from_and_the_others_none(
        manager: GameManager, recorder: Recorder) -> None:
    gid = await two_player_game(manager)
    view = manager.get(gid)
    user = view.seats[view.turn].user_id  # type: ignore[index]
    assert user is not None
    legal = manager.observation_for(gid, user)["legal"]
    moved = await manager.submit(gid, user, legal[0], via="dm")
    assert moved.via == "dm"
    assert [m.via for m in recorder.of(Moved)][:1] == ["dm"], "told as it was returned"
    other = view.seats[1 - view.turn].user_id  # type: ignore[operator]
    assert other is not None
    await manager.resign(gid, other)
    assert [(m.by, m.via) for m in recorder.of(Moved)][-1] == ("player", None)


async def test_the_chores_claimed_are_counted_by_what_they_were(
        manager: GameManager, clock: ManualClock) -> None:
    await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    clock.advance(manager.lobby_idle + 1)
    await manager.check_timers()
    assert manager.table_for_channel(CHANNEL) is None, "the idle lobby was cancelled"
    assert manager.tally.chores_claimed["lobby_timeout"] == 1
    assert manager.tally.taken_over == 0


class Transactions:
    """A ``TransactionWatch`` that keeps what it is told."""

    def __init__(self) -> None:
        self.told: list[tuple[str, float, Exception | None]] = []

    def transaction(self, op: str, seconds: float, error: Exception | None) -> None:
        self.told.append((op, seconds, error))


async def test_every_transaction_of_the_owners_is_told_with_its_error(store: Store) -> None:
    watch = Transactions()
    store.watch(watch)
    gid = await store.games.create_lobby("kids", {}, GUILD, CHANNEL, ANN.user_id,
                                         [Seat(0, ANN.user_id, ANN.name)],
                                         lobby_deadline=None, on_leave="skip", now=0)
    assert gid is not None
    await store.games.record(gid, [(0, 0, "lion@B3")], {"ply": 1}, now=0, turn_deadline=None)
    with pytest.raises(IntegrityError):  # the same ply twice: the database refuses it
        await store.games.record(gid, [(0, 0, "lion@B4")], {"ply": 1}, now=0,
                                 turn_deadline=None)
    await store.games.history(gid)
    ops = [(op, type(error).__name__ if error else None) for op, _, error in watch.told]
    assert ops == [("write", None), ("write", None), ("write", "IntegrityError"),
                   ("read", None)]
    assert all(seconds >= 0 for _, seconds, _ in watch.told)
    store.watch(None)
    await store.games.history(gid)
    assert len(watch.told) == 4, "no watch: nothing told"


async def test_the_database_answers_a_ping(store: Store) -> None:
    await store.ping()


async def test_a_sqlite_file_another_program_holds_the_write_lock_of_does_not_answer(
        tmp_path: Path) -> None:
    path = tmp_path / "sequence.db"
    async with await Store.open(path, busy_timeout_ms=100) as store:
        async with another_program_holds_the_write_lock(path):
            with pytest.raises(StoreUnavailable, match="another program holds the write lock"):
                await store.ping()
        await store.ping()  # the other program let go: it answers again
