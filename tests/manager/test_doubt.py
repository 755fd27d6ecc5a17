"""A move's outcome is never guessed (issue 32, item 2).

Each move is stored with the id of the request that made it. When the answer to a move's
COMMIT is lost (``tests/pg_proxy.py`` lets the COMMIT through, throws PostgreSQL's answer
away and cuts the connection), the manager asks the store by that id once it answers
again: kept, and the move goes on as if the answer had come (its events are told at once,
and the person hears it was kept); or not kept, and "nothing changed" is then the truth.
The same request delivered twice is never applied twice. The proxy tests run on
PostgreSQL (a SQLite commit is answered by the file itself); the request tests on both.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from manager import GameManager, ManualClock, Moved, Store
from store import CommitUnknown, StoreUnavailable
from tests.pg_proxy import PostgresProxy
from tests.waiting import until
from tools.pg_server import PostgresServer

from .conftest import BOB, Recorder, make_manager, two_player_game


@dataclass
class Behind:
    """A manager whose store reaches PostgreSQL through the proxy."""

    manager: GameManager
    store: Store
    proxy: PostgresProxy
    heard: Recorder


@contextlib.asynccontextmanager
async def behind_a_proxy(server: PostgresServer, dbname: str, clock: ManualClock,
                         **kw: float) -> AsyncIterator[Behind]:
    async with PostgresProxy(server) as proxy:
        store = await Store.connect(proxy.url(dbname))
        manager = make_manager(store, clock, **kw)
        heard = Recorder()
        manager.add_listener(heard)
        await manager.start(run_timers=False)
        try:
            yield Behind(manager, store, proxy, heard)
        finally:
            await manager.close()
            await store.close()


def dbname_of(url: str) -> str:
    return url.rsplit("/", 1)[1]


def to_move(manager: GameManager, game_id: int) -> tuple[int, str, int]:
    """(user, a legal action, ply) of the person to move."""
    view = manager.get(game_id)
    assert view.turn is not None
    user = view.seats[view.turn].user_id
    assert user is not None
    return user, manager.observation_for(game_id, user)["legal"][0], view.ply


async def stored(store: Store, game_id: int) -> list[tuple[int, str]]:
    return [(ply, action) for ply, _, action, _ in await store.games.history(game_id)]


async def test_a_move_whose_commit_answer_was_lost_is_found_kept_and_told_at_once(
        postgres_server: PostgresServer, postgres_url: str, clock: ManualClock) -> None:
    async with behind_a_proxy(postgres_server, dbname_of(postgres_url), clock) as it:
        gid = await two_player_game(it.manager)
        user, action, ply = to_move(it.manager, gid)
        cut = it.proxy.cut_after_commit()
        moved = await it.manager.submit(gid, user, action, expected_ply=ply,
                                        request_id="tap-1")
        assert cut.done.is_set(), "the answer to the move's COMMIT was lost"
        assert moved.kept_after_doubt and (moved.ply, moved.action) == (ply, action)
        told = [(m.ply, m.kept_after_doubt) for m in it.heard.of(Moved)]
        assert told[-1] == (ply, True), "its board is told now, not when a promise runs out"
        assert (await stored(it.store, gid))[ply:] == [(ply, action)], "stored once"
        assert await it.store.games.ply_of_request(gid, "tap-1") == ply
        assert it.manager.get(gid).ply == ply + 1
        # the game goes on from there, on a connection of its own
        user, action, ply = to_move(it.manager, gid)
        await it.manager.submit(gid, user, action, expected_ply=ply, request_id="tap-2")
        assert (await stored(it.store, gid))[-1] == (ply, action)


async def test_a_move_whose_commit_never_reached_the_database_changed_nothing(
        postgres_server: PostgresServer, postgres_url: str, clock: ManualClock) -> None:
    async with behind_a_proxy(postgres_server, dbname_of(postgres_url), clock) as it:
        gid = await two_player_game(it.manager)
        user, action, ply = to_move(it.manager, gid)
        it.proxy.cut_after_commit(forward=False)
        with pytest.raises(StoreUnavailable) as refused:
            await it.manager.submit(gid, user, action, expected_ply=ply, request_id="tap-1")
        assert not isinstance(refused.value, CommitUnknown), "asked, and answered: not kept"
        assert len(await stored(it.store, gid)) == ply
        assert it.manager.get(gid).ply == ply, "undone here too"
        # the same click again is a move like any other now
        moved = await it.manager.submit(gid, user, action, expected_ply=ply,
                                        request_id="tap-1")
        assert not moved.kept_after_doubt
        assert (await stored(it.store, gid))[ply:] == [(ply, action)]


async def test_a_lost_commit_is_asked_about_once_the_stopped_database_is_back(
        pausable_postgres: PostgresServer, clock: ManualClock) -> None:
    async with behind_a_proxy(pausable_postgres, "postgres", clock) as it:
        gid = await two_player_game(it.manager)
        user, action, ply = to_move(it.manager, gid)

        cut = it.proxy.cut_after_commit(before_answer=pausable_postgres.pause)

        async def start_again() -> None:
            await cut.happened(30)
            await asyncio.sleep(1.0)  # the outage
            await asyncio.to_thread(pausable_postgres.resume)

        again = asyncio.create_task(start_again())
        moved = await it.manager.submit(gid, user, action, expected_ply=ply,
                                        request_id="tap-1")
        await again
        assert moved.kept_after_doubt
        assert [m.ply for m in it.heard.of(Moved)][-1] == ply
        assert (await stored(it.store, gid))[ply:] == [(ply, action)]


async def test_a_lost_commit_the_database_cannot_tell_in_time_is_said_unsure_and_told_later(
        pausable_postgres: PostgresServer, clock: ManualClock) -> None:
    async with behind_a_proxy(pausable_postgres, "postgres", clock, doubt_wait=0.5,
                              promise=1.0, resync_every=0.2) as it:
        gid = await two_player_game(it.manager)
        user, action, ply = to_move(it.manager, gid)

        it.proxy.cut_after_commit(before_answer=pausable_postgres.pause)
        with pytest.raises(CommitUnknown):
            await it.manager.submit(gid, user, action, expected_ply=ply, request_id="tap-1")
        await asyncio.to_thread(pausable_postgres.resume)
        # it was kept: the promise written with it runs out, and the move is told then
        await until(lambda: [m for m in it.heard.of(Moved) if m.ply == ply],
                    "the move told once its promise ran out", timeout=20)
        await until(lambda: it.manager.get(gid).ply == ply + 1, "the game as stored")
        assert (await stored(it.store, gid))[ply:] == [(ply, action)]


async def test_the_same_request_delivered_again_is_never_played_twice(
        manager: GameManager, store: Store) -> None:
    gid = await two_player_game(manager, "dice")
    view = manager.get(gid)
    ann = view.seats[view.turn].user_id  # type: ignore[index]
    assert ann is not None
    await manager.submit(gid, ann, "roll", request_id="tap-roll")
    assert await store.games.ply_of_request(gid, "tap-roll") == view.ply
    # the rest of her turn, then Bob's, until it is her turn to roll again
    while manager.get(gid).seats[manager.get(gid).turn].user_id == ann:  # type: ignore[index]
        await manager.submit(gid, ann, manager.observation_for(gid, ann)["legal"][0])
    while manager.get(gid).turn is not None and \
            manager.get(gid).seats[manager.get(gid).turn].user_id != ann:  # type: ignore[index]
        bob = BOB.user_id
        await manager.submit(gid, bob, manager.observation_for(gid, bob)["legal"][0])
    before = manager.get(gid).ply
    assert "roll" in manager.observation_for(gid, ann)["legal"]
    with pytest.raises(Exception) as refused:
        # the first roll's request, delivered again (no ply on it, as a tap may have none)
        await manager.submit(gid, ann, "roll", request_id="tap-roll")
    assert getattr(refused.value, "code", None) == "already_played"
    assert manager.get(gid).ply == before, "not played twice"


async def test_a_request_retried_after_its_turn_passed_is_told_it_was_played(
        manager: GameManager) -> None:
    gid = await two_player_game(manager)
    user, action, ply = to_move(manager, gid)
    await manager.submit(gid, user, action, expected_ply=ply, request_id="tap-1")
    with pytest.raises(Exception) as refused:
        await manager.submit(gid, user, action, request_id="tap-1")  # not "not your turn"
    assert getattr(refused.value, "code", None) == "already_played"
