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
  process is gone, is taken over by another, which tells each owed move again before
  anything new happens in the game (``retell``).

When the database goes away (``StoreUnavailable``, said once by the store's ``Outages``)
nothing here stops or logs again: a change not saved leaves its game to be read again at
the next lock; the listening connection is opened again as soon as the database answers
(one line says so), and the look at every game runs then too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Collection

from store import ChoreRow, Status, Store, StoreUnavailable

from ..deadlines import LOOK, PROMISE, Chore, ChoreRule
from ..events import Followed, ShowAgain
from ..outbox import FinalBoards, Outbox
from ..restore import Restorer
from ..retell import told_again
from ..table import Table, Tables
from ..tally import Tally
from ..timers import Clock
from .locks import GameLocks
from .shared_lock import SharedLock

log = logging.getLogger(__name__)

#: Seconds a click may wait for its game to be brought up to date before it is answered
#: that the database is away (Discord wants an answer within 3 s).
CATCH_UP_WITHIN = 2.0
#: Seconds after the database server started during which another process with no
#: connection open is not taken for dead: a restart of PostgreSQL cut every process's
#: connections, and each needs a moment to connect again (its next look, every
#: ``RESYNC_INTERVAL``). Counted from the server's start (``pg_postmaster_start_time``),
#: never from this process's own last outage, which says nothing of the others.
RESTART_GRACE = 10.0


class SharedDatabase:
    """The ``Sharing`` of one process among several on the same PostgreSQL."""

    def __init__(self, store: Store, tables: Tables, restorer: Restorer, outbox: Outbox,
                 final_boards: FinalBoards, clock: Clock, *, rule: ChoreRule,
                 promise: float = PROMISE,
                 resync_every: float, tally: Tally | None = None) -> None:
        self.games = store.shared_games()
        self._log = store.games
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
        self.owner = self.games.session
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
        # games told to the end, not yet marked delivered: how far they were told
        self._unmarked: dict[int, int | None] = {}
        self._after_take_over: list[Callable[[], None]] = []

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
        held): another process changed it. A game that ended elsewhere is dropped. The
        listeners are told it was followed (``Followed``: the Activity shows it live)."""
        old = self._tables.get(game_id)
        await self._restorer.read_again(self._tables, game_id)
        fresh = self._tables.get(game_id)
        if fresh is not None:
            await self._outbox.tell(Followed(fresh.view()))
        elif old is not None:
            ending = (await self._restorer.ending(game_id) if old.status is Status.FINISHED
                      else None)
            await self._outbox.tell(Followed(old.view(), ending))

    async def _adopt(self, game_id: int) -> None:
        """A lobby or game another process made: hold it here too."""
        version = await self.games.version(game_id)
        _, table = await self._restorer.load(game_id)
        if table is None or game_id in self._tables:
            return  # ended, or adopted meanwhile
        self._lock(game_id, version)
        self._tables.put(table)
        await self._outbox.tell(Followed(table.view()))

    async def catch_up(self, game_id: int, *, for_a_click: bool = True) -> None:
        """A click may come faster than the news of the move before it (a DM reaches shard
        0's process however far the other is): one query, and a reload only if another
        process changed the game, or it is one this process has not heard of yet.

        A click is answered after this, within Discord's 3 s: a database that does not
        answer within ``catch_up_within`` seconds is away (``StoreUnavailable``). The
        look is then left to finish in the background: cancelling a query the server
        does not answer waits for the server too (measured: 10 s more)."""
        if not for_a_click:
            # (the timer loop, the change follower: nobody waits on them, and a look that
            # is merely slow under load must not stop a round of chores, nor be said as
            # the database going away)
            await self._catch_up_now(game_id)
            return
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

    async def _catch_up_now(self, game_id: int, told: str | None = None) -> None:
        """``told``: the version a change notice said the game is at (``refresh``)."""
        lock = self._locks.get(game_id)
        if lock is None or game_id not in self._tables:
            await self._adopt(game_id)
        else:
            await lock.refresh(told)

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
                                             grace=RESTART_GRACE, again=again)
        self._unclaimed.difference_update(again)  # claimed now, or not due any more
        return claimed

    def unclaim(self, game_ids: Collection[int]) -> None:
        # the database is away: the claims cannot be let go now; the next ``due`` that
        # reaches it may take them again at once (a change since may have rewritten them:
        # then they are that change's, and only taken if due and claimed by nobody)
        self._unclaimed.update(game_ids)

    async def schedule(self, game_id: int) -> None:
        await self.games.schedule(game_id, self._chore_row(game_id), self.owner)

    def when_taken_over(self, hook: Callable[[], None]) -> None:
        self._after_take_over.append(hook)

    async def hold_again(self, game_id: int, last_ply: int) -> bool:
        await self.games.hold_again(game_id)
        went_on = await self._log.last_ply(game_id) != last_ply
        if went_on:
            await self._reload(game_id)  # another process went on: its table as stored
        return not went_on

    async def delivered(self, game_id: int, through: int | None) -> None:
        """The promise is kept as far as the game was told (``through`` moves; None: as
        far as this process holds it, read before asking: a change made meanwhile keeps
        its own).

        Also while the game's lock is held: what holds it may be a click refused, which
        promises nothing and so would never mark this promise kept (it ran out instead,
        and another process showed the table again). A change under way that did promise
        is safe from this mark: it writes how far its promise goes (``through_ply``) in
        its own transaction, beyond ``through``, and the mark removes a promise only as
        far as ``through``. Only "as far as this process holds it" waits for the lock:
        the table then may already show a change not yet told."""
        if through is None:
            if self._locals.locked(game_id):
                return
            table = self._tables.get(game_id)
            through = (table.view().ply if table is not None
                       else await self._log.last_ply(game_id) + 1)
        try:
            await self.games.delivered(game_id, self.owner, through)
        except StoreUnavailable:
            # (said once, by the store) everything was told: only the mark is missing.
            # It is written when the database is back, or the promise would run out and
            # the table be shown a second time
            self._unmarked[game_id] = through
        except Exception:
            # the promise then runs out and another process shows the table again, which
            # posts only what is missing: late, never doubled
            log.warning("could not mark game %d's announcements delivered", game_id,
                        exc_info=True)

    def showing(self, game_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        return self.games.showing(game_id)

    async def _show_again(self, game_id: int, from_ply: int | None) -> None:
        """A process died before it had told everything: tell each move it owed again,
        from ``from_ply`` on (``retell``), before anything new in the game; none (or not
        known): show the table again as it stands (ended: how, if its board is owed)."""
        if game_id not in self._tables:
            await self._adopt(game_id)
        if game_id not in self._tables:
            ending = await self._final_boards.ending(game_id)
            through = None
            if ending is not None:
                told = await told_again(self._restorer, self._log, game_id, from_ply)
                for event in told or [ShowAgain(ending.table, ending)]:
                    await self._outbox.tell(event)
                    through = max(through or 0, event.table.ply)
            await self.delivered(game_id, through)
            return
        async with self.locked(game_id) as table:
            for event in (await told_again(self._restorer, self._log, game_id, from_ply,
                                           table)
                          or [ShowAgain(table.view())]):
                self._outbox.queue(game_id, event)
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

    def _heard(self, game_id: int, version: str | None) -> None:
        if self._closed:
            return
        task = asyncio.create_task(self._follow(game_id, version), name=f"follow-{game_id}")
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _follow(self, game_id: int, version: str | None) -> None:
        try:
            # (as ``catch_up`` for nobody waiting, with the notice's version)
            await self._catch_up_now(game_id, version)
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
        for game_id, through in sorted(self._unmarked.items()):
            del self._unmarked[game_id]
            if not self._outbox.busy(game_id):  # (else its flush marks it at its end)
                await self.delivered(game_id, through)
        taken = await self.games.take_over(self.owner, self._promise, grace=RESTART_GRACE)
        for game_id, from_ply in taken:
            log.warning("game %d: another process died before posting a change; showing "
                        "the table again here", game_id)
            self._tally.taken_over += 1
            await self._show_again(game_id, from_ply)
        if taken:
            for hook in self._after_take_over:
                hook()  # what waited for the tables taken over is due now (their chores)
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
