"""Several bot processes on one PostgreSQL: any process can change any game.

Discord sends every DM click to the process running shard 0, whatever server the game is
in, so a game cannot belong to the process that started it. Instead:

- A change takes the game's lock in the database (``SharedLock``: the process's own
  asyncio lock, then ``store.shared.SharedGames.locked``), compares the stored version
  with the one its cache was read at, reloads the game from the store when they differ,
  and only then checks the move (the button's ply), applies it with the engine and
  commits. So a cache is only ever trusted under the lock and at the stored version, and
  a double click that two processes receive is refused as ``already_played`` by the
  second, exactly as one process refuses it.
- After a change the process notifies the others (``NOTIFY``); they reload that game into
  their caches, so their quick reads (whose turn, who sits where) follow within
  milliseconds. A periodic look at every active game's version (``Sharing.resync``)
  catches whatever a lost notice or a lost listener connection missed: new games are
  adopted, finished ones dropped, changed ones reloaded.
- Computer players, timers, reminders and lobby time-outs are chores (``chores.py``):
  one row per game, written in every change's own transaction, claimed by any live
  process when due (``claim_due``), for ``chores.CLAIM`` seconds. A computer's turn is
  claimed by the process that made the move before it, which plays it at once; if that
  process dies, its claims run out and another process does the work.

On SQLite (one process) none of this runs: the manager keeps its asyncio locks, and the
code path is otherwise the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol

from .chores import CLAIM, Chore
from .events import Event
from .store.postgres import PostgresDatabase
from .store.shared import SharedGames

log = logging.getLogger(__name__)

RESYNC_INTERVAL = 5.0  # seconds between two looks at every active game's version


@dataclass(frozen=True)
class ShowAgain(Event):
    """Another process changed this table and died before it had posted everything: show
    the table again, posting only what its channel is missing (as after a restart)."""


class GameLock(Protocol):
    """What the manager needs of a game's lock: ``async with`` and ``locked()``."""

    def locked(self) -> bool: ...

    async def __aenter__(self) -> object: ...

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None: ...


def local_lock(lock: GameLock) -> GameLock:
    """The process's own part of a game's lock: enough to wait for what this process is
    doing to a game (shutting down), without asking the database for every game."""
    return lock.local if isinstance(lock, SharedLock) else lock


class SharedLock:
    """One game's lock across processes, which also brings the cache up to date.

    ``reload`` rebuilds the manager's table of this game from the store (it is called with
    the lock held); ``version`` is the stored version the cache was last read at."""

    def __init__(self, shared: SharedGames, game_id: int,
                 reload: Callable[[], Awaitable[None]], version: str | None = None,
                 owner: str | None = None, chore: Callable[[], Chore] | None = None,
                 ) -> None:
        self.local = asyncio.Lock()  # one change at a time inside this process too
        self._shared = shared
        self.game_id = game_id
        self.owner = owner
        self._chore = chore
        self._reload = reload
        self.version = version
        self._held: contextlib.AbstractAsyncContextManager[None] | None = None
        self._entered_at: str | None = None

    def locked(self) -> bool:
        return self.local.locked()

    async def __aenter__(self) -> SharedLock:
        await self.local.acquire()
        try:
            held = self._shared.locked(self.game_id, self.owner, chore=self._chore)
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
            version = await self._shared.version(self.game_id)
            if version != self._entered_at:
                self.version = version
                await self._shared.notify(self.game_id)
        finally:
            try:
                if held is not None:
                    await held.__aexit__(None, None, None)
            finally:
                self.local.release()

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


class Tables(Protocol):
    """What ``Sharing`` asks of the manager (``GameManager`` has these)."""

    def shared_lock(self, game_id: int) -> SharedLock | None: ...

    async def adopt(self, game_id: int) -> None: ...

    async def show_again(self, game_id: int) -> None: ...

    def cached_ids(self) -> Iterable[int]: ...

    def now(self) -> float:
        """The manager's clock (chores are due by it)."""
        ...


class Sharing:
    """The manager's link to the other processes on the same PostgreSQL."""

    def __init__(self, db: PostgresDatabase, tables: Tables, *,
                 interval: float = RESYNC_INTERVAL) -> None:
        self.games = SharedGames(db)
        self._tables = tables
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self.claim = CLAIM  # seconds a claimed chore is this process's (tests shorten it)
        # who owes announcements in ``deliveries`` and holds claims in ``chores``: this
        # process, for this run (its connections carry the name, so the others can see
        # whether it is still alive)
        self.owner = db.session
        self._closed = False

    def lock(self, game_id: int, reload: Callable[[], Awaitable[None]],
             version: str | None = None, chore: Callable[[], Chore] | None = None,
             ) -> SharedLock:
        return SharedLock(self.games, game_id, reload, version, self.owner, chore)

    async def claim_due(self, now: float) -> list[tuple[int, str]]:
        """The chores due now that no live claim holds, claimed by this process."""
        return await self.games.claim_due(self.owner, now, self.claim)

    async def schedule(self, game_id: int, chore: Chore) -> None:
        """Write a game's next chore (its lock held: on the lock's connection)."""
        await self.games.schedule(game_id, chore, self.owner)

    async def delivered(self, game_id: int, lock: object) -> None:
        """Every event of ``game_id`` this process queued has been told to its listeners:
        the promise written with the change is kept. (Not while the lock is held: a change
        being made now has promised again, and its events are still to come.)"""
        if isinstance(lock, SharedLock) and lock.locked():
            return
        try:
            await self.games.delivered(game_id, self.owner)
        except Exception:
            # the promise then runs out and another process shows the table again, which
            # posts only what is missing: late, never doubled
            log.warning("could not mark game %d's announcements delivered", game_id,
                        exc_info=True)

    def showing(self, game_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        return self.games.showing(game_id)

    async def start(self) -> None:
        await self.games.heal(self._tables.now())
        await self._listen()
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
        except Exception:
            # then they run out by themselves, as a dead process's do
            log.warning("could not let this process's chores go", exc_info=True)

    async def created(self, game_id: int) -> None:
        """A lobby was just made here: tell the others."""
        await self.games.notify(game_id)

    def _heard(self, game_id: int) -> None:
        if self._closed:
            return
        task = asyncio.create_task(self._follow(game_id), name=f"follow-{game_id}")
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _follow(self, game_id: int) -> None:
        try:
            lock = self._tables.shared_lock(game_id)
            if lock is None:
                await self._tables.adopt(game_id)
            else:
                await lock.refresh()
        except Exception:
            log.exception("could not follow the change of game %d", game_id)

    async def _listen(self) -> None:
        try:
            await self.games.listen(self._heard)
        except (OSError, Exception):
            log.warning("cannot listen for other processes' changes; looking every %g s",
                        self.interval, exc_info=True)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                if not self.games.listening:
                    await self._listen()
                await self.resync()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("could not look at the other processes' changes")

    async def resync(self) -> None:
        """Bring every cached game to its stored version, adopt the games this process
        has not heard of, drop the ones that ended, and give every active game without a
        chore row a look (``heal``)."""
        for game_id in await self.games.take_over(self.owner):
            log.warning("game %d: another process died before posting a change; showing "
                        "the table again here", game_id)
            await self._tables.show_again(game_id)
        stored = await self.games.active_versions()
        for game_id, version in stored.items():
            lock = self._tables.shared_lock(game_id)
            if lock is None:
                await self._tables.adopt(game_id)
            elif lock.version != version and not lock.locked():
                await lock.refresh()
        for game_id in [g for g in self._tables.cached_ids() if g not in stored]:
            lock = self._tables.shared_lock(game_id)
            if lock is not None and not lock.locked():
                await lock.refresh()  # ended elsewhere: the reload drops it
        await self.games.heal(self._tables.now())
