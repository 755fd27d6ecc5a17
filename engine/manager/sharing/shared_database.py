"""Several bot processes on one PostgreSQL: any process can change any game.

Discord sends every DM click to the process running shard 0, whatever server the game is
in, so a game cannot belong to the process that started it. Instead:

- A change takes the game's lock in the database (``SharedLock``: this process's own
  asyncio lock, then ``store.shared.SharedGames.locked``), compares the stored version
  with the one its cache was read at, reloads the game from the store when they differ,
  and only then checks the move (the button's ply), applies it with the engine and
  commits. So a cache is only ever trusted under the lock and at the stored version, and
  a double click that two processes receive is refused as ``already_played`` by the
  second, exactly as one process refuses it.
- After a change the process notifies the others (``NOTIFY``); they reload that game into
  their caches, so their quick reads (whose turn, who sits where) follow within
  milliseconds. A periodic look at every active game's version (``resync``) catches
  whatever a lost notice or a lost listener connection missed: new games are adopted,
  finished ones dropped, changed ones reloaded.
- What each game waits for next (``deadlines``) is its row in ``chores``, written last in
  every change's own transaction and claimed by any live process when due, for
  ``CHORE_CLAIM`` seconds. A computer's turn is claimed by the process that made the move
  before it, which plays it at once; if that process dies, its claims are taken over.
- Every change under the lock also promises, in its transaction, that this process will
  tell it (``deliveries``); a promise not kept within ``PROMISE`` seconds, or whose
  process is gone, is taken over by another, which shows the table again (``ShowAgain``).

When the database goes away for a while (``StoreUnavailable``; the store's ``Outages``
says so in the log, once) nothing here stops or logs again: a change that was not saved
leaves its game to be read again at the next lock (the cache may be ahead of the store);
the listening connection, cut with the others, is opened again as soon as the database
answers (one line says it listens again), and the look at every game runs then too, for
whatever the notices missed meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from types import TracebackType

from ..deadlines import LOOK, PROMISE, Chore, ChoreRule
from ..events import ShowAgain
from ..outbox import FinalBoards, Outbox
from ..restore import Restorer
from ..store import Store, StoreUnavailable
from ..store.postgres import PostgresDatabase
from ..store.shared import ChoreRow, SharedGames
from ..table import Table, Tables
from ..tally import Tally
from ..timers import Clock
from .locks import GameLocks

log = logging.getLogger(__name__)

#: Seconds a click may wait for its game to be brought up to date before it is answered
#: that the database is away (Discord wants an answer within 3 s).
CATCH_UP_WITHIN = 2.0
#: Seconds after the database came back during which another process with no connection
#: open is not taken for dead: a restart of PostgreSQL cut every process's connections,
#: and each needs a moment to connect again (its next look, every ``RESYNC_INTERVAL``).
#: Meanwhile only claims and promises whose time ran out are taken over.
RESTART_GRACE = 10.0


class SharedLock:
    """One game's lock across processes, which also brings the cache up to date.

    ``reload`` rebuilds this process's table of the game from the store (called with the
    lock held); ``version`` is the stored version the cache was last read at."""

    def __init__(self, shared: SharedGames, game_id: int, local: asyncio.Lock,
                 reload: Callable[[], Awaitable[None]], version: str | None,
                 owner: str, chore: Callable[[], ChoreRow], promise: float) -> None:
        self.local = local  # one change at a time inside this process too
        self._shared = shared
        self.game_id = game_id
        self._owner = owner
        self._chore = chore
        self._promise = promise
        self._reload = reload
        self.version = version
        self._held: contextlib.AbstractAsyncContextManager[None] | None = None
        self._entered_at: str | None = None

    def locked(self) -> bool:
        return self.local.locked()

    async def __aenter__(self) -> SharedLock:
        await self.local.acquire()
        try:
            held = self._shared.locked(self.game_id, self._owner, chore=self._chore,
                                       promise=self._promise)
            await held.__aenter__()
            self._held = held
            try:
                await self._catch_up()
            except BaseException:
                self._held = None
                await held.__aexit__(None, None, None)
                raise
        except BaseException:
            self.local.release()
            raise
        self._entered_at = self.version
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        held, self._held = self._held, None
        try:
            if isinstance(exc, StoreUnavailable):
                # not saved, and this process's copy may be ahead of the store (a seat
                # taken or a deadline moved before the commit failed): read it again at
                # the next lock
                self.version = None
            else:
                await self._tell_the_others()
        finally:
            try:
                if held is not None:
                    # (a connection that broke took the lock with it)
                    with contextlib.suppress(StoreUnavailable):
                        await held.__aexit__(None, None, None)
            finally:
                self.local.release()

    async def _tell_the_others(self) -> None:
        """After a change (or none): if the stored version moved, notify the others."""
        try:
            version = await self._shared.version(self.game_id)
            if version != self._entered_at:
                self.version = version
                await self._shared.notify(self.game_id)
        except StoreUnavailable:
            # the change is committed: the others find it at their next look, and this
            # process reads the game again at its next lock
            self.version = None

    async def refresh(self) -> None:
        """Another process said this game changed: catch up, holding only the local lock
        (a read needs no database lock: a later change is caught at the next lock). Our
        own notices come back too: the version tells, without taking any lock."""
        if await self._shared.version(self.game_id) == self.version:
            return
        async with self.local:
            await self._catch_up()

    async def _catch_up(self) -> None:
        version = await self._shared.version(self.game_id)
        if version != self.version:
            # read the version first: what is loaded is at least that new, so a change in
            # between only costs one more reload at the next lock, never a stale cache
            await self._reload()
            self.version = version


class SharedDatabase:
    """The ``Sharing`` of one process among several on the same PostgreSQL."""

    def __init__(self, store: Store, tables: Tables, restorer: Restorer, outbox: Outbox,
                 final_boards: FinalBoards, clock: Clock, *, rule: ChoreRule,
                 promise: float = PROMISE,
                 resync_every: float, tally: Tally | None = None) -> None:
        db = store.database
        assert isinstance(db, PostgresDatabase)
        self.games = SharedGames(db)
        self._tables = tables
        self._restorer = restorer
        self._outbox = outbox
        self._final_boards = final_boards
        self._clock = clock
        self._rule = rule
        self._promise = promise
        self.resync_every = resync_every
        self._tally = tally or Tally()  # counts the tables taken over
        self._locals = GameLocks()
        self._locks: dict[int, SharedLock] = {}
        # who owes announcements in ``deliveries`` and holds claims in ``chores``: this
        # process, for this run (its connections carry the name, so the others can see
        # whether it is still alive)
        self.owner = db.session
        self.closing = False
        self._closed = False
        self._task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self._outages = store.outages
        # the resync loop's wake-up: the database is back (listen again and look at every
        # game now, not at the next tick)
        self._wake = asyncio.Event()
        self._deaf = False  # the listening connection went: say when it listens again
        self.catch_up_within = CATCH_UP_WITHIN
        self._unclaimed: set[int] = set()  # claims of chores left undone (``unclaim``)
        self._unmarked: set[int] = set()  # games told to the end, not yet marked delivered

    # -- the games' locks ----------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def locked(self, game_id: int) -> AsyncIterator[Table]:
        table = self._tables.find(game_id)
        async with self._lock(game_id):
            yield self._tables.get(game_id) or table
        if game_id not in self._tables:
            self._forget(game_id)

    def busy(self, game_id: int) -> bool:
        return self._locals.locked(game_id)

    def holding_all(self) -> contextlib.AbstractAsyncContextManager[None]:
        # the local half is enough to wait for what this process is doing to its games
        return self._locals.holding_all()

    def _lock(self, game_id: int, version: str | None = None) -> SharedLock:
        lock = self._locks.get(game_id)
        if lock is None:
            async def reload() -> None:
                await self._reload(game_id)

            lock = self._locks[game_id] = SharedLock(
                self.games, game_id, self._locals.of(game_id), reload, version, self.owner,
                lambda: self._chore_row(game_id), self._promise)
        return lock

    def _forget(self, game_id: int) -> None:
        lock = self._locks.get(game_id)
        if lock is not None and not lock.locked():
            del self._locks[game_id]
            self._locals.forget(game_id)

    def _chore(self, game_id: int) -> Chore:
        return self._rule.next_chore(self._tables.get(game_id), self._clock.now(),
                                     playing_here=not self.closing)

    def _chore_row(self, game_id: int) -> ChoreRow:
        chore = self._chore(game_id)
        return chore.what, chore.due_at, chore.claimed_until

    # -- caches that follow the store --------------------------------------------------

    async def _reload(self, game_id: int) -> None:
        """Bring this process's table of ``game_id`` to what the store holds (its lock is
        held): another process changed it. A game that ended elsewhere is dropped."""
        await self._restorer.read_again(self._tables, game_id)

    async def _adopt(self, game_id: int) -> None:
        """A lobby or game another process made: hold it here too."""
        version = await self.games.version(game_id)
        _, table = await self._restorer.load(game_id)
        if table is None or game_id in self._tables:
            return  # ended, or adopted meanwhile
        self._lock(game_id, version)
        self._tables.put(table)

    async def catch_up(self, game_id: int) -> None:
        """A click may come faster than the news of the move before it (a DM reaches shard
        0's process however far the other is): one query, and a reload only if another
        process changed the game, or it is one this process has not heard of yet.

        A click is answered after this, within Discord's 3 s: a database that does not
        answer within ``catch_up_within`` seconds is away (``StoreUnavailable``). The
        look is then left to finish in the background: cancelling a query the server
        does not answer waits for the server too (measured: 10 s more)."""
        look = asyncio.ensure_future(self._catch_up_now(game_id))
        try:
            done, _ = await asyncio.wait({look}, timeout=self.catch_up_within)
        except asyncio.CancelledError:
            look.cancel()
            raise
        if look in done:
            look.result()
            return
        look.cancel()
        look.add_done_callback(_forgotten)
        reason = f"no answer within {self.catch_up_within:g} s"
        self._outages.failed(reason)
        raise StoreUnavailable(reason)

    async def _catch_up_now(self, game_id: int) -> None:
        lock = self._locks.get(game_id)
        if lock is None or game_id not in self._tables:
            await self._adopt(game_id)
        else:
            await lock.refresh()

    async def load(self) -> None:
        # versions first: a game changed while loading is reloaded at its next lock
        versions = await self.games.active_versions()
        for table in await self._restorer.load_active():
            self._lock(table.id, versions.get(table.id))
            self._tables.put(table)

    # -- chores and announcements ------------------------------------------------------

    async def created(self, table: Table) -> None:
        self._lock(table.id)
        await self.schedule(table.id)  # its time-out
        await self.games.notify(table.id)

    async def due(self, now: float) -> list[tuple[int, str]]:
        again = sorted(self._unclaimed)
        claimed = await self.games.claim_due(self.owner, now, self._rule.claim,
                                             trust_gone=self._trust_gone(), again=again)
        self._unclaimed.difference_update(again)  # claimed now, or not due any more
        return claimed

    def unclaim(self, game_ids: Collection[int]) -> None:
        # the database is away: the claims cannot be let go now; the next ``due`` that
        # reaches it may take them again at once (a change since may have rewritten them:
        # then they are that change's, and only taken if due and claimed by nobody)
        self._unclaimed.update(game_ids)

    def _trust_gone(self) -> bool:
        """Whether a process with no connection open is dead (not just after the
        database came back: ``RESTART_GRACE``)."""
        back = self._outages.seconds_back()
        return back is None or back >= RESTART_GRACE

    async def schedule(self, game_id: int) -> None:
        await self.games.schedule(game_id, self._chore_row(game_id), self.owner)

    async def delivered(self, game_id: int) -> None:
        """The promise written with the change is kept. (Not while the lock is held: a
        change being made now has promised again, and its events are still to come.)"""
        if self._locals.locked(game_id):
            return
        try:
            await self.games.delivered(game_id, self.owner)
        except StoreUnavailable:
            # (said once, by the store) everything was told: only the mark is missing.
            # It is written when the database is back, or the promise would run out and
            # the table be shown a second time
            self._unmarked.add(game_id)
        except Exception:
            # the promise then runs out and another process shows the table again, which
            # posts only what is missing: late, never doubled
            log.warning("could not mark game %d's announcements delivered", game_id,
                        exc_info=True)

    def showing(self, game_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        return self.games.showing(game_id)

    async def _show_again(self, game_id: int) -> None:
        """The process that changed this game died before it had told everything: tell
        the listeners to show it again (a game that ended: how it ended, if its final
        board is owed)."""
        if game_id not in self._tables:
            await self._adopt(game_id)
        table = self._tables.get(game_id)
        if table is None:
            ending = await self._final_boards.ending(game_id)
            if ending is not None:
                await self._outbox.tell(ShowAgain(ending.table, ending))
            await self.delivered(game_id)
            return
        self._outbox.queue(game_id, ShowAgain(table.view()))
        await self._outbox.flush(game_id)

    # -- following the others ----------------------------------------------------------

    async def start(self) -> None:
        await self.games.heal(self._clock.now(), LOOK)
        await self._listen()
        self._outages.when_back(self._wake.set)
        self._task = asyncio.create_task(self._loop(), name="sharing-resync")

    async def close(self) -> None:
        self._closed = True  # deaf first: a notice heard now starts nothing
        await self.games.close()
        tasks = [t for t in (self._task, *self._pending) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            await self.games.release(self.owner)
        except StoreUnavailable:
            pass  # as below (the outage is said once, by the store)
        except Exception:
            # then they run out by themselves, as a dead process's do
            log.warning("could not let this process's chores go", exc_info=True)

    def _heard(self, game_id: int) -> None:
        if self._closed:
            return
        task = asyncio.create_task(self._follow(game_id), name=f"follow-{game_id}")
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _follow(self, game_id: int) -> None:
        try:
            await self.catch_up(game_id)
        except StoreUnavailable:
            pass  # the look after the outage brings it up to date
        except Exception:
            log.exception("could not follow the change of game %d", game_id)

    async def _listen(self) -> None:
        try:
            await self.games.listen(self._heard, self._lost)
        except StoreUnavailable:
            self._deaf = True  # the outage is said once, by the store; look meanwhile
            return
        except Exception:
            log.warning("cannot listen for other processes' changes; looking every %g s",
                        self.resync_every, exc_info=True)
            return
        if self._deaf:
            self._deaf = False
            log.info("listening for other processes' changes again")

    def _lost(self) -> None:
        """The listening connection went (the database restarted, or cut it alone): the
        loop listens again at its next look (every ``resync_every`` seconds, which also
        finds what was missed meanwhile), or as soon as the database answers again."""
        if not self._closed:
            self._deaf = True

    async def _loop(self) -> None:
        while True:
            # ``asyncio.timeout``, not ``wait_for``: on Python 3.11 a wake-up coming with
            # close()'s cancel made wait_for return and swallow the cancel (the loop then
            # ran on, and close waited for it for ever: the database back as it stopped)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.resync_every):
                    await self._wake.wait()
            self._wake.clear()
            if self._closed:
                return
            try:
                if not self.games.listening:
                    await self._listen()
                await self.resync()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable:
                pass  # said once by the store; looked at again when it answers
            except Exception:
                log.exception("could not look at the other processes' changes")

    async def resync(self) -> None:
        """Bring every cached game to its stored version, adopt the games this process
        has not heard of, drop the ones that ended, show again what a dead process owed,
        and give every active game without a chore a look."""
        for game_id in sorted(self._unmarked):
            self._unmarked.discard(game_id)
            if not self._outbox.busy(game_id):  # (else its flush marks it at its end)
                await self.delivered(game_id)
        for game_id in await self.games.take_over(self.owner, self._promise,
                                                  trust_gone=self._trust_gone()):
            log.warning("game %d: another process died before posting a change; showing "
                        "the table again here", game_id)
            self._tally.taken_over += 1
            await self._show_again(game_id)
        stored = await self.games.active_versions()
        for game_id, version in stored.items():
            lock = self._locks.get(game_id)
            if lock is None or game_id not in self._tables:
                await self._adopt(game_id)
            elif lock.version != version and not lock.locked():
                await lock.refresh()
        for game_id in [g for g in self._tables.ids() if g not in stored]:
            lock = self._locks.get(game_id)
            if lock is not None and not lock.locked():
                await lock.refresh()  # ended elsewhere: the reload drops it
        await self.games.heal(self._clock.now(), LOOK)


def _forgotten(task: asyncio.Future[None]) -> None:
    """A look given up on (the database did not answer in time) ended: how does not
    matter any more (the outage was said when it was given up)."""
    if not task.cancelled():
        task.exception()
