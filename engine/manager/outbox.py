"""Telling the listeners: each game's events in commit order, and the final-board mark.

A change queues its events while its game's lock is held and they are told after the lock
is let go (``flush``), one game's events one at a time and in order, to every listener in
turn. A listener that raises is logged and skipped: a game never stops because a message
could not be shown. One that met the database away (``StoreUnavailable``, said once by
the store) is skipped without a log line, and the game's queue does not count as told:
with several processes the promise to announce is then not kept, so the table is shown
again (what is missing only) once it runs out.

The final-board mark is the store's note that a finished game's last board got out: a
process that died between the last move's commit and its board leaves a final board owed,
which a restart or another process posts (``FinalBoards``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from .events import Event, GameOver, Listener
from .restore import Restorer
from .status import Status
from .store import Store, StoreUnavailable

log = logging.getLogger(__name__)


class Outbox:
    """The listeners, and each game's events still to be told."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._queues: dict[int, deque[Event]] = {}
        self._telling: dict[int, asyncio.Task[Any] | None] = {}  # game -> the task telling
        # told when a game's queue is empty again (several processes: the promise to
        # announce, written with the change, is kept)
        self._emptied: list[Callable[[int], Awaitable[None]]] = []

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def when_emptied(self, hook: Callable[[int], Awaitable[None]]) -> None:
        """Call ``hook(game_id)`` each time a game's queue has been told to the end."""
        self._emptied.append(hook)

    def queue(self, game_id: int, event: Event) -> None:
        self._queues.setdefault(game_id, deque()).append(event)

    def busy(self, game_id: int) -> bool:
        """Whether this game's events are being told, or waiting to be."""
        return game_id in self._telling or bool(self._queues.get(game_id))

    async def flush(self, game_id: int) -> None:
        """Tell a game's queued events in commit order. A delivery already under way in
        another task picks the new ones up itself. A listener never changes a table while
        it is told of one (the calls would go down and come back up): that is a bug, and
        raises here, in the listener's call."""
        if game_id in self._telling:
            if self._telling[game_id] is asyncio.current_task():
                raise RuntimeError(f"a listener changed game {game_id} while being told of it")
            return
        self._telling[game_id] = asyncio.current_task()
        try:
            queue = self._queues.get(game_id)
            told = True
            while queue:
                told = await self.tell(queue.popleft()) and told
            self._queues.pop(game_id, None)
            if told:
                for hook in self._emptied:
                    await hook(game_id)
        finally:
            del self._telling[game_id]

    async def tell(self, event: Event) -> bool:
        """One event to every listener now; False if one met the database away."""
        told = True
        for listener in list(self._listeners):
            try:
                await listener.on_event(event)
            except StoreUnavailable:
                told = False
                log.debug("listener %r met the database away on %s of game %d", listener,
                          type(event).__name__, event.game_id)
            except Exception:
                log.exception("listener %r failed on %s of game %d", listener,
                              type(event).__name__, event.game_id)
        return told

    def games_queued(self) -> int:
        """How many games have events waiting (stays 0 between games)."""
        return len(self._queues)


class FinalBoards:
    """Which finished games' final boards got out (the store's ``end_shown`` mark)."""

    def __init__(self, store: Store, restorer: Restorer) -> None:
        self._store = store
        self._restorer = restorer

    async def owed(self) -> list[int]:
        """The finished games whose final board has not got out."""
        return await self._store.games.ends_not_shown()

    async def ending(self, game_id: int) -> GameOver | None:
        """How a game ended, as its ``GameOver`` told it, if its final board is owed. None
        for a game whose end was shown, one in play, cancelled, or unknown."""
        if await self._store.games.end_is_shown(game_id):
            return None
        rec = await self._store.games.load_game(game_id)
        if rec is None or rec.status is not Status.FINISHED or rec.snapshot is None:
            return None
        return (await self._restorer.restore(rec, check=False)).ending()

    async def shown(self, game_id: int) -> None:
        await self._store.games.end_shown(game_id)
