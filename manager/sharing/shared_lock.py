"""One game's lock across several bot processes on one PostgreSQL, which also brings this
process's cache of the game up to date (``SharedDatabase.locked``).

The lock is this process's own asyncio lock, then the game's advisory lock in the database
(``store.shared.SharedGames.locked``). Under it the stored version is compared with the one
the cache was read at, and the game reloaded when they differ; after the change, the other
processes are told (``NOTIFY``) if the stored version moved. So a cache is only ever
trusted under the lock and at the stored version.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING

from store import ChoreRow, StoreUnavailable

if TYPE_CHECKING:  # (the store's PostgreSQL part, loaded only when it runs)
    from store import SharedGames


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
            self.version = await self._shared.tell(self.game_id, self._entered_at)
        except StoreUnavailable:
            # the change is committed: the others find it at their next look, and this
            # process reads the game again at its next lock
            self.version = None

    async def refresh(self, told: str | None = None) -> None:
        """Another process said this game changed: catch up, holding only the local lock
        (a read needs no database lock: a later change is caught at the next lock). Our
        own notices come back too: the version tells, without taking any lock.

        ``told``: the version the notice said. Our own change's notice may arrive before
        the change is through here, so it is compared once this process's lock is free
        (taken and let go with nothing awaited between: nobody sees it held): a cache at
        that version needs no query (a later change sends its own notice)."""
        if told is not None:
            async with self.local:
                if told == self.version:
                    return
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
