"""The database goes away and comes back (issue 26, item 1): the manager and the store.

Each fault is made for real: a PostgreSQL server of the test's own stopped with
``pg_ctl stop -m fast`` (every connection cut) and started again on the same data and
port; a SQLite file that cannot be written (``PRAGMA query_only``: SQLite answers exactly
as for a read-only file), or whose write lock another program holds beyond the busy
timeout. The full disk has its own test below (``PRAGMA max_page_count``). What must hold
whatever the fault: the change is refused as ``StoreUnavailable`` and changes nothing,
in memory or in the store; the log says it once and its end once, without a traceback;
what was waiting (a computer player's turn) goes on once the database is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Protocol

import pytest

from manager import GameManager, ManualClock, Store
from manager.events import Moved, Player, ShowAgain, TurnReminder, TurnTimedOut
from store import StoreUnavailable
from store.outages import Outages
from store.postgres import unavailable_reason
from tests.manager.conftest import ANN, BOB, CHANNEL, GUILD, Recorder, make_manager
from tests.pg_proxy import PostgresProxy
from tests.sqlite_lock import another_program_holds_the_write_lock
from tests.waiting import until
from tools.pg_server import PostgresServer

OUTAGE_LOG = "store.outages"
#: Games played side by side until the file is full (their moves fill its last pages;
#: enough that they do long before all of them end).
GAMES_TO_FILL = 20


class Fault(Protocol):
    """One way the database goes away for a while, made for real on ``store``."""

    store: Store
    reasons: tuple[str, ...]  # what the log may give as its reason

    async def begin(self) -> None: ...

    async def end(self) -> None: ...


class PostgresStopped:
    reasons = ("connection refused", "connection lost", "connection closed",
               "the database system is shutting down",
               "terminating connection due to administrator command")

    def __init__(self, server: PostgresServer, store: Store) -> None:
        self.server = server
        self.store = store

    async def begin(self) -> None:
        await asyncio.to_thread(self.server.pause)

    async def end(self) -> None:
        await asyncio.to_thread(self.server.resume)


class ReadOnlyFile:
    reasons = ("the file is read-only",)

    def __init__(self, store: Store) -> None:
        self.store = store

    async def begin(self) -> None:
        await self.store.pragma("query_only", 1)

    async def end(self) -> None:
        await self.store.pragma("query_only", 0)


class LockedByAnotherProgram:
    """Another program (a careless backup script, ``sqlite3`` in a shell) holds the write
    lock: the bot's writes wait its busy timeout, then give up."""

    reasons = ("another program holds the write lock",)

    def __init__(self, store: Store, path: Path) -> None:
        self.store = store
        self.path = path
        self.held = contextlib.AsyncExitStack()

    async def begin(self) -> None:
        await self.held.enter_async_context(another_program_holds_the_write_lock(self.path))

    async def end(self) -> None:
        await self.held.aclose()


@pytest.fixture(params=["postgres stopped", "read-only file", "locked by another program"])
async def fault(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Fault]:
    made: Fault
    if request.param == "postgres stopped":
        server: PostgresServer = request.getfixturevalue("pausable_postgres")
        made = PostgresStopped(server, await Store.connect(server.url()))
    elif request.param == "read-only file":
        made = ReadOnlyFile(await Store.open(tmp_path / "bot.db"))
    else:
        path = tmp_path / "bot.db"
        made = LockedByAnotherProgram(await Store.open(path, busy_timeout_ms=100), path)
    try:
        yield made
    finally:
        await made.store.close()


@pytest.fixture
async def manager(fault: Fault, clock: ManualClock) -> AsyncIterator[GameManager]:
    m = make_manager(fault.store, clock)
    await m.start(run_timers=False)
    yield m
    await m.close()


async def game(manager: GameManager, channel: int = CHANNEL) -> int:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, channel)
    await manager.join(lobby.game_id, BOB)
    await manager.start_game(lobby.game_id, ANN.user_id)
    return lobby.game_id


def mover(manager: GameManager, game_id: int) -> tuple[int, str]:
    """Who is to move, and a move they may make."""
    view = manager.get(game_id)
    assert view.turn is not None
    user = view.seats[view.turn].user_id
    assert user is not None
    return user, manager.observation_for(game_id, user)["legal"][0]


async def test_a_move_that_meets_the_fault_is_refused_and_changes_nothing(
        fault: Fault, manager: GameManager) -> None:
    gid = await game(manager)
    before = manager.get(gid)
    user, action = mover(manager, gid)
    await fault.begin()
    with pytest.raises(StoreUnavailable) as refused:
        await manager.submit(gid, user, action, expected_ply=before.ply)
    assert refused.value.reason in fault.reasons
    assert manager.get(gid) == before, "nothing changed here"
    await fault.end()
    record = await manager.load_record(gid)
    assert record is not None and len(record.actions) == before.ply, "nor in the store"
    moved = await manager.submit(gid, user, action, expected_ply=before.ply)
    assert moved.ply == before.ply
    record = await manager.load_record(gid)
    assert record is not None and record.actions[before.ply] == action


async def test_a_seat_taken_while_the_database_is_away_is_not_kept(
        fault: Fault, manager: GameManager) -> None:
    lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
    await fault.begin()
    with pytest.raises(StoreUnavailable):
        await manager.join(lobby.game_id, BOB)
    assert [s.name for s in manager.get(lobby.game_id).seats] == ["Ann"]
    await fault.end()
    joined = await manager.join(lobby.game_id, BOB)  # not "already in this lobby"
    assert [s.name for s in joined.seats] == ["Ann", "Bob"]


class GatedClock(ManualClock):
    """A computer player's pause ends only when the test opens the gate, so the test can
    take the database away between its look at the game and its move."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.waiting = 0

    async def sleep(self, seconds: float) -> None:
        self.waiting += 1
        try:
            await self.gate.wait()
        finally:
            self.waiting -= 1


def computer_moves(heard: Recorder) -> list[Moved]:
    return [e for e in heard.of(Moved) if e.by == "computer"]


async def test_a_computer_turn_that_meets_the_outage_is_played_once_the_database_is_back(
        fault: Fault) -> None:
    clock = GatedClock()
    manager = make_manager(fault.store, clock)
    heard = Recorder()
    manager.add_listener(heard)
    await manager.start(run_timers=False)
    try:
        lobby = await manager.create_lobby("kids", {}, ANN, GUILD, CHANNEL)
        await manager.add_computer(lobby.game_id, ANN.user_id, "easy")
        await manager.start_game(lobby.game_id, ANN.user_id)
        gid = lobby.game_id
        while manager.get(gid).turn == 0:  # Ann first, if it is her turn
            await manager.submit(gid, *mover(manager, gid))
        ply = manager.get(gid).ply
        await until(lambda: clock.waiting, "the computer player's pause before its move")
        await fault.begin()
        clock.gate.set()  # its move now meets the database away
        await until(lambda: fault.store.outages.down, "the computer player to meet the fault")
        # (its move was applied to the game before the commit that failed: it is undone)
        await until(lambda: manager.get(gid).ply == ply, "the move that was not saved undone")
        assert not computer_moves(heard), "nothing told of it"
        await fault.end()
        moved = await until(lambda: computer_moves(heard), "the computer's move after the outage")
        assert moved[0].ply == ply
        record = await manager.load_record(gid)
        assert record is not None and len(record.actions) > ply
    finally:
        await manager.close()


async def test_a_turn_timer_that_fell_due_during_the_outage_runs_once_the_database_is_back(
        fault: Fault, manager: GameManager, clock: ManualClock) -> None:
    heard = Recorder()
    manager.add_listener(heard)
    await manager.set_guild_settings(GUILD, turn_timer=60)
    gid = await game(manager)
    ply = manager.get(gid).ply
    clock.advance(61)  # its reminder and its end both fell due
    await fault.begin()
    with contextlib.suppress(StoreUnavailable):  # (several processes: no claim at all)
        await manager.check_timers()
    assert not heard.of(TurnReminder) and not heard.of(TurnTimedOut)
    assert manager.get(gid).ply == ply
    await fault.end()
    await manager.check_timers()
    assert [e.outcome for e in heard.of(TurnTimedOut)] == ["computer_moved"]
    record = await manager.load_record(gid)
    assert record is not None and len(record.actions) == ply + 1


async def test_chores_claimed_when_the_database_went_away_are_done_as_soon_as_it_is_back(
        fault: Fault, manager: GameManager, clock: ManualClock) -> None:
    """Three games' reminders fall due together and are claimed in one round; the first is
    done, then the database goes away: the other two are not left claimed (for
    ``CHORE_CLAIM`` seconds) but done on the first look after it is back."""
    await manager.set_guild_settings(GUILD, turn_timer=60)
    games = []
    for k in range(3):
        host, guest = Player(10 + 2 * k, f"Host {k}"), Player(11 + 2 * k, f"Guest {k}")
        lobby = await manager.create_lobby("kids", {}, host, GUILD, CHANNEL + k)
        await manager.join(lobby.game_id, guest)
        await manager.start_game(lobby.game_id, host.user_id)
        games.append(lobby.game_id)
    reminded: list[int] = []

    class GoesAwayAfterTheFirst(Recorder):
        async def on_event(self, event: object) -> None:
            if isinstance(event, TurnReminder):
                reminded.append(event.table.game_id)
                if len(reminded) == 1:
                    await fault.begin()

    manager.add_listener(GoesAwayAfterTheFirst())
    clock.advance(31)  # every reminder is due (the timers end at 60 s)
    try:
        with contextlib.suppress(StoreUnavailable):
            await manager.check_timers()
        assert len(reminded) == 1
    finally:
        await fault.end()
    await manager.check_timers()  # no time has passed: no claim ran out
    assert sorted(reminded) == sorted(games)


async def test_an_outage_is_logged_once_when_it_begins_and_once_when_it_ends_without_traceback(
        fault: Fault, manager: GameManager, caplog: pytest.LogCaptureFixture) -> None:
    gid = await game(manager)
    user, action = mover(manager, gid)
    caplog.set_level(logging.INFO)
    await fault.begin()
    for _ in range(3):  # met again and again: still one outage
        with pytest.raises(StoreUnavailable):
            await manager.submit(gid, user, action)
    await fault.end()
    await manager.submit(gid, user, action)
    said = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == OUTAGE_LOG]
    assert len(said) == 2, said
    (level, began), (level_after, ended) = said
    assert level == "WARNING" and began.startswith("database ") and began.endswith("; retrying")
    assert any(began.endswith(f": {reason}; retrying") for reason in fault.reasons), began
    assert level_after == "INFO" and ended.startswith("database back after ")
    assert [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR] == []


@pytest.mark.parametrize(("exc", "said"), [
    # asyncpg's own when the server goes away in the connect's TLS handshake (CI once
    # logged this outage as "database unreachable: ConnectionError")
    (ConnectionError("unexpected connection_lost() call"), "connection lost"),
    (ConnectionError('PostgreSQL server at "127.0.0.1:5432": server sent an error response '
                     "during SSL exchange; check the server logs for details"),
     "server sent an error response during SSL exchange"),
    (ConnectionRefusedError(111, "Connection refused"), "connection refused"),
    (OSError(28, "No space left on device"), "No space left on device"),
])
def test_a_database_gone_away_is_named_in_words_never_by_an_exception_class(
        exc: OSError, said: str) -> None:
    assert unavailable_reason(exc) == said


def test_outages_say_the_reason_and_how_long_it_lasted(caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    now = [100.0]
    outages = Outages(failing="unreachable", clock=lambda: now[0])
    caplog.set_level(logging.INFO, OUTAGE_LOG)
    outages.failed("connection refused")
    now[0] += 2.0
    outages.failed("connection reset")  # the same outage, met by someone else
    assert outages.down and outages.reason == "connection refused"
    now[0] += 3.2
    outages.answered()
    outages.answered()
    assert not outages.down and outages.seconds_back() == 0.0
    assert [r.getMessage() for r in caplog.records] == [
        "database unreachable: connection refused; retrying",
        "database back after 5.2 s"]
    assert outages.outages == 1


async def test_every_use_of_a_stopped_postgres_is_store_unavailable_until_it_is_back(
        pausable_postgres: PostgresServer) -> None:
    async with await Store.connect(pausable_postgres.url()) as store:
        await store.games.guild_settings(GUILD)
        await asyncio.to_thread(pausable_postgres.pause)
        uses = {
            "a read": store.games.guild_settings(GUILD),
            "a write": store.games.save_bot_fact("fact", "value", now=1.0),
            "a query": store.database.fetchall("SELECT id FROM games"),
            "a game's results": store.standings.stats(ANN.user_id),
        }
        for what, use in uses.items():
            with pytest.raises(StoreUnavailable):
                await use
            assert store.outages.down, what
        await asyncio.to_thread(pausable_postgres.resume)
        await until(lambda: not store.outages.down, "the database to answer again")
        await store.games.save_bot_fact("fact", "value", now=1.0)
        assert await store.games.bot_fact("fact") == "value"


async def test_announcements_made_while_the_database_went_away_are_not_shown_again(
        pausable_postgres: PostgresServer, clock: ManualClock) -> None:
    """The database goes away while a move is being announced: every listener heard it,
    only the mark "delivered" could not be written. Once the database is back that mark
    is written, so the promise never runs out and nobody shows the table a second time
    (with a promise of 2 s here, which the mark beats)."""
    async with await Store.connect(pausable_postgres.url()) as store:
        manager = make_manager(store, clock, promise=2.0, resync_every=0.2)
        await manager.start(run_timers=False)
        try:
            gid = await game(manager)
            user, action = mover(manager, gid)
            heard: list[object] = []

            class GoesAwayOnTheMove(Recorder):
                async def on_event(self, event: object) -> None:
                    heard.append(event)
                    if isinstance(event, Moved):
                        await asyncio.to_thread(pausable_postgres.pause)

            manager.add_listener(GoesAwayOnTheMove())
            try:
                await manager.submit(gid, user, action, expected_ply=manager.get(gid).ply)
            finally:
                await asyncio.to_thread(pausable_postgres.resume)

            async def nothing_owed() -> bool:
                with contextlib.suppress(StoreUnavailable):
                    return not await store.database.fetchall("SELECT 1 FROM deliveries")
                return False

            await until(nothing_owed, "the announcements marked delivered", 10)
            assert heard and not [e for e in heard if isinstance(e, ShowAgain)]
        finally:
            await manager.close()


async def test_the_change_listener_listens_again_after_postgres_restarts(
        pausable_postgres: PostgresServer, clock: ManualClock,
        caplog: pytest.LogCaptureFixture) -> None:
    """B would look at the other processes' changes only once an hour: a change of A's
    reaches B's cache after the restart only if B listens again."""
    caplog.set_level(logging.INFO)
    url = pausable_postgres.url()
    async with await Store.connect(url) as one, await Store.connect(url) as other:
        a = make_manager(one, clock)
        b = make_manager(other, clock, resync_every=3600)
        await a.start(run_timers=False)
        await b.start(run_timers=False)
        try:
            gid = await game(a)
            await until(lambda: b.is_active(gid), "B to hear of the game")
            await asyncio.to_thread(pausable_postgres.pause)
            with pytest.raises(StoreUnavailable):
                await b.catch_up(gid)  # B meets the outage
            await asyncio.to_thread(pausable_postgres.resume)
            await until(lambda: "listening for other processes' changes again" in caplog.text,
                        "B to listen again")
            moved = await a.submit(gid, *mover(a, gid))
            await until(lambda: b.get(gid).ply > moved.ply, "B to hear of A's move")
        finally:
            await a.close()
            await b.close()


async def test_a_full_disk_refuses_the_move_keeps_the_file_whole_and_play_goes_on(
        tmp_path: Path, clock: ManualClock, caplog: pytest.LogCaptureFixture) -> None:
    """``max_page_count`` at the file's size: the first write that needs one more page
    meets a full disk, as a real one would (moves fill the last page of the action log)."""
    caplog.set_level(logging.INFO)
    store = await Store.open(tmp_path / "bot.db")
    manager = make_manager(store, clock)
    await manager.start(run_timers=False)
    rng = random.Random(26)
    try:
        games = [await game(manager, CHANNEL + i) for i in range(GAMES_TO_FILL)]
        await store.pragma("max_page_count", await store.pragma("page_count"))
        refused: StoreUnavailable | None = None
        while refused is None and (playing := [g for g in games if manager.is_active(g)]):
            gid = rng.choice(playing)
            before = manager.get(gid)
            user, _ = mover(manager, gid)
            action = rng.choice(manager.observation_for(gid, user)["legal"])
            try:
                await manager.submit(gid, user, action)
            except StoreUnavailable as exc:
                refused = exc
        assert refused is not None and refused.reason == "the disk is full"
        assert manager.get(gid) == before, "nothing changed here"
        record = await manager.load_record(gid)
        assert record is not None and len(record.actions) == before.ply, "nor in the file"
        assert await store.pragma("integrity_check") == "ok"
        await store.pragma("max_page_count", 1_000_000)  # room again
        moved = await manager.submit(gid, user, action)
        assert moved.ply == before.ply
        assert await store.pragma("integrity_check") == "ok"
        said = [r.getMessage() for r in caplog.records if r.name == OUTAGE_LOG]
        assert said[0] == "database cannot be written: the disk is full; retrying"
        assert said[1].startswith("database back after ") and len(said) == 2
    finally:
        await manager.close()
        await store.close()


async def test_a_database_that_stops_answering_is_taken_for_away_before_a_click_must_be_answered(
        pausable_postgres: PostgresServer, clock: ManualClock) -> None:
    """A hung server (SIGSTOP: no refusal, no answer) must not keep a click past Discord's
    3 s: bringing the game up to date, the one database work before a click is answered,
    gives up after 2 s and says the database is away."""
    async with await Store.connect(pausable_postgres.url()) as store:
        manager = make_manager(store, clock)
        await manager.start(run_timers=False)
        try:
            gid = await game(manager)
            await asyncio.to_thread(pausable_postgres.freeze)
            try:
                with pytest.raises(StoreUnavailable) as away:
                    await manager.catch_up(gid)
                assert away.value.reason == "no answer within 2 s"
            finally:
                await asyncio.to_thread(pausable_postgres.thaw)
            await manager.catch_up(gid)
            moved = await manager.submit(gid, *mover(manager, gid))
            assert moved.ply == 0
        finally:
            await manager.close()


async def test_a_database_gone_the_moment_a_move_was_committed_is_not_taken_for_back(
        pausable_postgres: PostgresServer, clock: ManualClock,
        caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL answers a move's COMMIT and stops before the answer reaches the bot
    (``tests/pg_proxy.py`` holds it meanwhile): the move is kept and told, and what follows
    the commit meets the database gone. Nothing asked before the outage began says it is
    back, the end of the move's hold on the game's lock included: the outage goes on, said
    once, until the database answers again. (The lock's end was taken for an answer: the
    log said "database back after 0.0 s" while it was away, and the outage again a moment
    later; the two-process outage test, stopping the database at a commit, failed on it
    every time.)"""
    caplog.set_level(logging.INFO)
    async with PostgresProxy(pausable_postgres) as proxy, \
            await Store.connect(proxy.url()) as store:
        manager = make_manager(store, clock)
        heard = Recorder()
        manager.add_listener(heard)
        await manager.start(run_timers=False)
        try:
            gid = await game(manager)
            user, action = mover(manager, gid)
            stop = proxy.stop_at_commit(b"INSERT INTO actions", pausable_postgres.pause)
            moved = await manager.submit(gid, user, action, expected_ply=0)
            assert stop.done.is_set(), "the database stopped as it committed the move"
            assert moved.ply == 0 and [m.ply for m in heard.of(Moved)] == [0], "kept, told"
            assert store.outages.down, "the database is still away"
            with pytest.raises(StoreUnavailable):
                await manager.catch_up(gid)
            said = [r.getMessage() for r in caplog.records if r.name == OUTAGE_LOG]
            assert len(said) == 1 and said[0].startswith("database unreachable: "), said
            await asyncio.to_thread(pausable_postgres.resume)
            await until(lambda: not store.outages.down, "the database to answer again")
            said = [r.getMessage() for r in caplog.records if r.name == OUTAGE_LOG]
            assert len(said) == 2 and said[1].startswith("database back after "), said
            assert store.outages.outages == 1
            record = await manager.load_record(gid)
            assert record is not None and record.actions == [action]
        finally:
            await manager.close()


async def test_an_answer_that_was_on_its_way_as_the_database_stopped_does_not_end_the_outage(
        pausable_postgres: PostgresServer, clock: ManualClock,
        caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL answers a move's COMMIT and stops; before that answer reaches the bot
    (``tests/pg_proxy.py`` holds it), another use of the database meets the outage. The
    answer then comes: it was asked before the outage began, so it says nothing of the
    database now. (It was taken for the database back: "database back after 0.0 s", and
    the outage said a second time by the next use, a moment later.)"""
    caplog.set_level(logging.INFO)
    loop = asyncio.get_running_loop()
    async with PostgresProxy(pausable_postgres) as proxy, \
            await Store.connect(proxy.url()) as store:
        manager = make_manager(store, clock)
        await manager.start(run_timers=False)
        try:
            gid = await game(manager)
            user, action = mover(manager, gid)

            async def meet_the_outage() -> None:
                with pytest.raises(StoreUnavailable):
                    await store.games.guild_settings(GUILD)

            def stop() -> None:  # (in the proxy's thread, the COMMIT's answer held)
                pausable_postgres.pause()
                asyncio.run_coroutine_threadsafe(meet_the_outage(), loop).result(30)

            proxy.stop_at_commit(b"INSERT INTO actions", stop)
            moved = await manager.submit(gid, user, action, expected_ply=0)
            assert moved.ply == 0, "kept"
            assert store.outages.down, "the database is still away"
            said = [r.getMessage() for r in caplog.records if r.name == OUTAGE_LOG]
            assert len(said) == 1 and said[0].startswith("database unreachable: "), said
            await asyncio.to_thread(pausable_postgres.resume)
            await until(lambda: not store.outages.down, "the database to answer again")
            said = [r.getMessage() for r in caplog.records if r.name == OUTAGE_LOG]
            assert len(said) == 2 and said[1].startswith("database back after "), said
            assert store.outages.outages == 1
        finally:
            await manager.close()
