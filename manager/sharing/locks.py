"""Each game's lock inside this process: one change of a game at a time.

Two clicks racing for one turn, or a click racing a computer player or a timer, take the
same lock, so at most one move is applied. With several processes this is the local half
of the game's lock (the other half is in the database: ``shared_lock.SharedLock``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class GameLocks:
    """One ``asyncio.Lock`` per game, made when first asked for, dropped when it ends."""

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}

    def of(self, game_id: int) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def locked(self, game_id: int) -> bool:
        lock = self._locks.get(game_id)
        return lock is not None and lock.locked()

    def forget(self, game_id: int) -> None:
        """The game ended: its lock goes once nobody holds it (a later call on the game is
        refused before it would take one)."""
        lock = self._locks.get(game_id)
        if lock is not None and not lock.locked():
            del self._locks[game_id]

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def holding_all(self) -> AsyncIterator[None]:
        """Every game's lock, in game order: the changes under way finish first, and no
        new one begins while this is held (shutting down)."""
        async with contextlib.AsyncExitStack() as held:
            for game_id in sorted(self._locks):
                await held.enter_async_context(self._locks[game_id])
            yield
