"""Two processes on one PostgreSQL share every game (issue 17, manager/sharing.py).

Each "process" here is a GameManager with its own store (its own connection pool) on the
same database, as two ``python bot.py`` processes are. Discord sends a DM click to whichever
process runs shard 0, so any of them must be able to play any game: a move takes the game's
lock in the database and reloads the game if another process changed it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable
from typing import Any

import asyncpg
import pytest

from engine import Refusal
from manager import GameManager, ManualClock, Store
from manager.events import GameOver, Moved, ShowAgain
from manager.sharing.shared_database import RESTART_GRACE
from store.postgres import SESSION_PREFIX, PostgresDatabase
from store.shared import CHANNEL as NOTICES
from tests.manager.conftest import ANN, BOB, GUILD, Recorder, make_manager, server_up_for
from tests.waiting import until

CHANNEL = 910


class StuckClock(ManualClock):
    """A clock whose sleeps never end: a computer player that will never move (the process
    is about to die with its turn pending)."""

    async def sleep(self, seconds: float) -> None:
        await asyncio.Event().wait()


async def deafen(manager: GameManager) -> None:
    """Cut the connection on which ``manager`` hears the other processes' changes, as a
    network fault would (its next look at them is due only after ``resync_every``)."""
    db = manager.store.database
    assert isinstance(db, PostgresDatabase)
    name = SESSION_PREFIX + db.session
    cut = ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
           " WHERE application_name = $1 AND query LIKE 'LISTEN%'")
    assert await db.pool.fetchval(cut, name), "it was listening"
    still = ("SELECT count(*) FROM pg_stat_activity"
             " WHERE application_name = $1 AND query LIKE 'LISTEN%'")
    await until(lambda: _none(db.pool.fetchval(still, name)), "its listener to be gone")


async def _none(count: Awaitable[Any]) -> bool:
    return await count == 0


@pytest.fixture
async def two(postgres_url: str, clock: ManualClock
              ) -> AsyncIterator[tuple[GameManager, GameManager]]:
    stores = [await Store.connect(postgres_url), await Store.connect(postgres_url)]
    managers = [make_manager(s, clock) for s in stores]
    for m in managers:
        await m.start(run_timers=False)
    yield managers[0], managers[1]
    for m in managers:
        await m.close()
    for s in stores:
        await s.close()


async def test_a_lobby_made_in_one_process_is_joined_and_played_to_the_end_from_both(
        two: tuple[GameManager, GameManager]) -> None:
    a, b = two
    heard_a, heard_b = Recorder(), Recorder()
    a.add_listener(heard_a)
    b.add_listener(heard_b)
    lobby = await a.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await until(lambda: b.table_for_channel(CHANNEL), "the other process to hear of it")
    await b.join(lobby.game_id, BOB)
    await a.start_game(lobby.game_id, ANN.user_id)  # a knows Bob joined although b seated him
    gid = lobby.game_id
    rng = random.Random(7)
    moves = 0
    while a.is_active(gid):
        # a person reads the board the last move posted, then clicks; their click arrives
        # at the other process every other time
        await until(lambda: not b.is_active(gid) or a.get(gid) == b.get(gid),
                         "both caches to agree")
        if not b.is_active(gid):
            break
        here = (a, b)[moves % 2]
        view = here.get(gid)
        if view.turn is None:
            break
        user = view.seats[view.turn].user_id
        assert user is not None
        # the move is checked against the stored game, whatever this process cached
        obs = here.observation_for(gid, user)
        if obs["legal"]:
            await here.submit(gid, user, rng.choice(obs["legal"]))
            moves += 1
    await until(lambda: not b.is_active(gid), "the game to end in both processes")
    record = await a.load_record(gid)
    assert record is not None and record.status == "finished"
    plies = [e.ply for e in heard_a.of(Moved) + heard_b.of(Moved)]
    assert sorted(plies) == list(range(len(record.actions))), "every ply told once"
    assert moves > 10


async def test_a_double_click_arriving_at_both_processes_is_played_once(
        two: tuple[GameManager, GameManager]) -> None:
    a, b = two
    lobby = await a.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await a.join(lobby.game_id, BOB)
    await a.start_game(lobby.game_id, ANN.user_id)
    gid = lobby.game_id
    await until(lambda: b.is_active(gid) and b.get(gid).status == "playing", "b to follow")
    view = a.get(gid)
    user = view.seats[view.turn].user_id  # type: ignore[index]
    assert user is not None
    action = a.observation_for(gid, user)["legal"][0]
    results = await asyncio.gather(
        a.submit(gid, user, action, expected_ply=view.ply),
        b.submit(gid, user, action, expected_ply=view.ply), return_exceptions=True)
    played = [r for r in results if isinstance(r, Moved)]
    refused = [r for r in results if isinstance(r, Refusal)]
    assert len(played) == 1 and len(refused) == 1, results
    assert refused[0].code == "already_played"
    record = await a.load_record(gid)
    assert record is not None and len(record.actions) == view.ply + 1


async def test_a_change_notice_says_the_version_the_change_left_and_a_refusal_sends_none(
        two: tuple[GameManager, GameManager], postgres_url: str) -> None:
    """The others follow a move within milliseconds by its notice; the version in it lets a
    process already at that version (the mover, hearing its own) skip the query."""
    a, b = two
    lobby = await a.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await a.join(lobby.game_id, BOB)
    await a.start_game(lobby.game_id, ANN.user_id)
    gid = lobby.game_id
    heard: list[str] = []
    ear = await asyncpg.connect(postgres_url)
    try:
        await ear.add_listener(NOTICES, lambda *notice: heard.append(notice[3]))
        versions = []
        for move in range(2):
            view = a.get(gid)
            user = view.seats[view.turn].user_id  # type: ignore[index]
            assert user is not None
            if move == 1:  # a click on an old button changes nothing: nobody is told
                with pytest.raises(Refusal):
                    await a.submit(gid, user, a.observation_for(gid, user)["legal"][0],
                                   expected_ply=view.ply - 1)
            await a.submit(gid, user, a.observation_for(gid, user)["legal"][0],
                           expected_ply=view.ply)
            versions.append(await ear.fetchval(
                "SELECT xmin::text FROM games WHERE id = $1", gid))
            await until(lambda: len(heard) == len(versions), "the move's notice")
        assert heard == [f"{gid} {v}" for v in versions]
        await until(lambda: b.is_active(gid) and b.get(gid).ply == a.get(gid).ply,
                    "the other process to follow by the notice")
    finally:
        await ear.close()


async def test_a_process_that_missed_the_news_reloads_before_it_moves(
        two: tuple[GameManager, GameManager]) -> None:
    a, b = two
    await deafen(b)  # b hears no notices now (and its look is not due)
    lobby = await a.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await a.join(lobby.game_id, BOB)
    await a.start_game(lobby.game_id, ANN.user_id)
    gid = lobby.game_id
    await b.catch_up(gid)  # b caches the game at its start...
    stale = b.get(gid)
    view = a.get(gid)
    user = view.seats[view.turn].user_id  # type: ignore[index]
    assert user is not None
    await a.submit(gid, user, a.observation_for(gid, user)["legal"][0])  # ...then a moves
    assert b.get(gid).ply == stale.ply, "b's cache is behind"
    now = a.get(gid)
    nxt = now.seats[now.turn].user_id  # type: ignore[index]
    assert nxt is not None
    # the stale button b would have drawn is refused as it is in one process
    with pytest.raises(Refusal) as refused:
        await b.submit(gid, user, "lion@A1", expected_ply=stale.ply)
    assert refused.value.code == "already_played"
    moved = await b.submit(gid, nxt, a.observation_for(gid, nxt)["legal"][0],
                           expected_ply=now.ply)
    assert moved.ply == now.ply and b.get(gid).ply == now.ply + 1


async def owed(store: Store) -> list[tuple[int, str]]:
    rows = await store.database.fetchall("SELECT game_id, owner FROM deliveries")
    return [(int(r[0]), str(r[1])) for r in rows]


async def test_a_change_promises_its_announcements_and_keeps_the_promise(
        two: tuple[GameManager, GameManager]) -> None:
    a, _ = two
    lobby = await a.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await a.join(lobby.game_id, BOB)
    await a.start_game(lobby.game_id, ANN.user_id)
    view = a.get(lobby.game_id)
    user = view.seats[view.turn].user_id  # type: ignore[index]
    assert user is not None
    await a.submit(lobby.game_id, user, a.observation_for(lobby.game_id, user)["legal"][0])
    assert await owed(a.store) == [], "told, so nothing is owed"


async def _none_owed(store: Store) -> bool:
    return await owed(store) == []


class Hangs:
    """A listener that never finishes telling a move (its process is about to die)."""

    def __init__(self) -> None:
        self.reached = asyncio.Event()  # the move was committed and is being told

    async def on_event(self, event: Any) -> None:
        if isinstance(event, Moved):
            self.reached.set()
            await asyncio.Event().wait()


async def test_announcements_a_dead_process_owed_are_shown_again_by_another(
        postgres_url: str, clock: ManualClock) -> None:
    doomed_store, live_store = await Store.connect(postgres_url), await Store.connect(postgres_url)
    # the promise lasts long enough to be seen under load; the live one looks often
    doomed = make_manager(doomed_store, clock, promise=2.0)
    live = make_manager(live_store, clock, resync_every=0.1)
    await doomed.start(run_timers=False)
    await live.start(run_timers=False)
    heard = Recorder()
    live.add_listener(heard)
    try:
        hangs = Hangs()
        doomed.add_listener(hangs)
        lobby = await doomed.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
        await doomed.join(lobby.game_id, BOB)
        await doomed.start_game(lobby.game_id, ANN.user_id)
        gid = lobby.game_id
        view = doomed.get(gid)
        user = view.seats[view.turn].user_id  # type: ignore[index]
        assert user is not None
        move = asyncio.create_task(
            doomed.submit(gid, user, doomed.observation_for(gid, user)["legal"][0]))
        # (not ``announcing``: that is true from the lock on, before the commit)
        await asyncio.wait_for(hangs.reached.wait(), 10)
        assert not move.done()
        assert [g for g, _ in await owed(live_store)] == [gid], "committed and promised"
        move.cancel()  # the process dies with its board unposted
        await asyncio.gather(move, return_exceptions=True)
        await doomed.close()
        await doomed_store.close()
        told = await until(lambda: heard.of(Moved), "another process to tell it again")
        assert [(e.game_id, e.ply, e.by) for e in told] == [(gid, view.ply, "player")]
        assert told[0].table.ply == view.ply + 1, "told as committed, the move itself"
        assert live.tally.taken_over == 1, "counted, for the bot's metrics"
        await until(lambda: _none_owed(live_store), "the promise kept by the taker")
    finally:
        await live.close()
        await live_store.close()


class HangsAtTheEnd:
    """A listener that never finishes telling a game's end (its process is about to die
    after the last move's commit, before its final board is out)."""

    def __init__(self) -> None:
        self.over: GameOver | None = None
        self.reached = asyncio.Event()

    async def on_event(self, event: Any) -> None:
        if isinstance(event, GameOver):
            self.over = event
            self.reached.set()
            await asyncio.Event().wait()


async def test_a_final_board_a_dead_process_owed_is_shown_again_by_another(
        postgres_url: str, clock: ManualClock) -> None:
    doomed_store, live_store = await Store.connect(postgres_url), await Store.connect(postgres_url)
    doomed = make_manager(doomed_store, clock)
    live = make_manager(live_store, clock, resync_every=0.1)
    await doomed.start(run_timers=False)
    await live.start(run_timers=False)
    heard = Recorder()
    live.add_listener(heard)
    try:
        hangs = HangsAtTheEnd()
        doomed.add_listener(hangs)
        lobby = await doomed.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
        await doomed.join(lobby.game_id, BOB)
        await doomed.start_game(lobby.game_id, ANN.user_id)
        gid = lobby.game_id
        # Bob resigns: the game ends with Ann the winner, and its end is never told
        quitting = asyncio.create_task(doomed.resign(gid, BOB.user_id))
        await asyncio.wait_for(hangs.reached.wait(), 10)
        quitting.cancel()
        await asyncio.gather(quitting, return_exceptions=True)
        await doomed.close()
        await doomed_store.close()
        told = await until(lambda: heard.of(GameOver), "another process to tell the end again")
        assert [(e.game_id, e.table.status) for e in told] == [(gid, "finished")]
        assert [e.action for e in heard.of(Moved)] == ["resign:1"], "the move that ended it"
        final = await live.final_boards.ending(gid)
        assert hangs.over is not None and final is not None
        assert (told[0].winner, told[0].reason) == (hangs.over.winner, hangs.over.reason)
        # the end as it was first told: who won, why, and the board
        assert (final.winner, final.draw, final.reason, final.winning_seats) == (
            hangs.over.winner, hangs.over.draw, hangs.over.reason, hangs.over.winning_seats)
        assert final.observation == hangs.over.observation
        assert final.table.seats == hangs.over.table.seats
        await live.final_boards.shown(gid)  # what the Discord side says once it is posted
        assert await live.final_boards.ending(gid) is None, "shown: never again"
        await until(lambda: _none_owed(live_store), "the promise kept by the taker")
    finally:
        await live.close()
        await live_store.close()


async def test_a_click_reads_the_game_as_stored_even_before_the_news_arrives(
        two: tuple[GameManager, GameManager]) -> None:
    a, b = two
    await deafen(b)  # the news of a's changes never reaches b
    lobby = await a.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    gid = lobby.game_id
    assert not b.is_active(gid)
    await b.catch_up(gid)  # a click on a button of a game b has not heard of
    assert b.get(gid).status == "lobby"
    await a.join(lobby.game_id, BOB)
    await a.start_game(lobby.game_id, ANN.user_id)
    assert b.get(gid).status == "lobby", "b has not heard"
    await b.catch_up(gid)
    assert b.get(gid) == a.get(gid)


async def test_moves_a_dead_process_never_told_are_told_in_order_before_anything_new(
        postgres_url: str, clock: ManualClock) -> None:
    """Found in the reliability run (issue 32): moves stored and never shown on a board.
    A process died after committing a move and before telling it, with a computer to move
    next. The live one took the computer's turn over (its claim was the dead process's)
    and played it before it took over the owed announcements, and then showed the table
    as it stood: after the computer's move. The person's move never had a board. Now the
    live process first tells each owed move again, in order, then plays the turn."""
    doomed_store, live_store = await Store.connect(postgres_url), await Store.connect(postgres_url)
    doomed = make_manager(doomed_store, StuckClock(clock.now()))  # its computer never moves
    live = make_manager(live_store, clock, resync_every=0.1)
    await doomed.start(run_timers=False)
    await live.start(run_timers=False)
    heard = Recorder()
    live.add_listener(heard)
    try:
        await until(lambda: server_up_for(live_store, RESTART_GRACE),
                    "the server to be up longer than a restart's grace", timeout=30)
        hangs = Hangs()
        doomed.add_listener(hangs)
        lobby = await doomed.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
        await doomed.add_computer(lobby.game_id, ANN.user_id, "easy")
        await doomed.start_game(lobby.game_id, ANN.user_id)
        gid = lobby.game_id
        assert doomed.get(gid).turn == 0, "Ann first, the computer after her"
        # a chip placed (an exchanged dead card would keep her turn)
        action = next(a for a in doomed.observation_for(gid, ANN.user_id)["legal"] if "@" in a)
        move = asyncio.create_task(doomed.submit(gid, ANN.user_id, action))
        await asyncio.wait_for(hangs.reached.wait(), 10)
        move.cancel()  # the process dies with her move's board unposted
        await asyncio.gather(move, return_exceptions=True)
        doomed_store.database.pool.terminate()  # type: ignore[attr-defined]
        await doomed.close()
        # the live process's timer loop may look before its resync does
        await live.check_timers()
        await live.settle()

        async def computer_moved() -> list[Moved]:
            await live.check_timers()
            await live.settle()
            return [e for e in heard.of(Moved) if e.by == "computer"]

        await until(computer_moved, "the computer's turn played by the live process")
        told = [(e.ply, e.by) for e in heard.of(Moved)]
        assert told[:2] == [(0, "player"), (1, "computer")], told
        assert heard.of(Moved)[0].action == action
        assert not heard.of(ShowAgain), "each move told, not the table as it stands"
    finally:
        await live.close()
        await live_store.close()
        await doomed_store.close()


async def test_a_promise_is_kept_though_a_refused_click_held_the_game_as_its_telling_ended(
        two: tuple[GameManager, GameManager]) -> None:
    """Ann's move is told while a stale click of Bob's waits inside the game's lock (the
    other process holds the game in the database): the click changes nothing and promises
    nothing, so the move's promise must be marked kept when its telling ends, not left to
    run out (another process would then show the table again, and every check of "all
    told" waits for it: the two-process tidy-board test failed so)."""
    from store.shared import SharedGames
    from tests.manager.conftest import two_player_game

    a, b = two
    game_id = await two_player_game(a, channel=CHANNEL)
    db = a.store.database
    assert isinstance(db, PostgresDatabase) and isinstance(b.store.database, PostgresDatabase)
    holder = SharedGames(b.store.database)
    held, release = asyncio.Event(), asyncio.Event()
    clicks: list[asyncio.Task[Any]] = []

    async def hold() -> None:
        async with holder.locked(game_id):
            held.set()
            await release.wait()

    async def waiting_for_the_lock() -> bool:
        return bool(await db.pool.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))

    class StaleClick:
        async def on_event(self, event: Any) -> None:
            if isinstance(event, Moved) and not clicks:
                clicks.append(asyncio.create_task(hold()))
                await held.wait()
                legal = a.observation_for(game_id, BOB.user_id)["legal"]
                clicks.append(asyncio.create_task(
                    a.submit(game_id, BOB.user_id, legal[0], expected_ply=0)))
                await until(waiting_for_the_lock, "the stale click inside the game's lock")

    a.add_listener(StaleClick())
    legal = [x for x in a.observation_for(game_id, ANN.user_id)["legal"] if "@" in x]
    await a.submit(game_id, ANN.user_id, legal[0], expected_ply=0)
    release.set()
    with pytest.raises(Refusal) as refused:
        await clicks[1]
    assert refused.value.code == "already_played"
    await clicks[0]

    async def nothing_owed() -> bool:
        return not await db.pool.fetchval("SELECT count(*) FROM deliveries")

    await until(nothing_owed, "the move's promise marked kept", 5)
