"""Telling the listeners: each game's events in commit order, and the final-board mark.

A change queues its events while its game's lock is held and they are told after the lock
is let go (``flush``), one game's events one at a time and in order, to every listener in
turn. The telling is a task of the outbox's own, which the change that started it waits
for: a caller given up on (a computer player cancelled because a person's move ended its
game) stops waiting, never the telling, so the events a later change left to it (that
move's board and the end) are still told. Only a stop (``halt``) cuts a telling.

A ``Hearer`` is told each event as it is queued instead (committed, in commit order), so
it never waits for a slower listener's work on the event before. A listener that raises is
logged and skipped: a game never stops because a message could not be shown. One that met
the database away (``StoreUnavailable``, said once by the store) is skipped without a log
line, and the game's queue does not count as told: with several processes the promise to
announce is then not kept, so the table is shown again (what is missing only) once it runs
out.

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

from store import Store, StoreUnavailable

from .events import Event, GameOver, Hearer, Listener
from .restore import Restorer

log = logging.getLogger(__name__)


class Outbox:
    """The listeners, and each game's events still to be told."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._hearers: list[Hearer] = []
        self._queues: dict[int, deque[Event]] = {}
        self._telling: dict[int, asyncio.Task[None]] = {}  # game -> the task telling
        # told when a game's queue is empty again (several processes: the promise to
        # announce, written with the change, is kept), with how far the game was told
        self._emptied: list[Callable[[int, int | None], Awaitable[None]]] = []

    def add_listener(self, listener: Listener | Hearer) -> None:
        if isinstance(listener, Hearer):
            self._hearers.append(listener)
        else:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener | Hearer) -> None:
        if isinstance(listener, Hearer):
            self._hearers.remove(listener)
        else:
            self._listeners.remove(listener)

    def when_emptied(self, hook: Callable[[int, int | None], Awaitable[None]]) -> None:
        """Call ``hook(game_id, through)`` each time a game's queue has been told to the
        end: ``through``, the game told through that many moves (the newest ``ply`` of
        the tables its events showed; None: nothing was told this time)."""
        self._emptied.append(hook)

    def queue(self, game_id: int, event: Event) -> None:
        self._queues.setdefault(game_id, deque()).append(event)
        self._hear(event)

    def _hear(self, event: Event) -> None:
        for hearer in self._hearers:
            try:
                hearer.heard(event)
            except Exception:
                log.exception("hearer %r failed on %s of game %d", hearer,
                              type(event).__name__, event.game_id)

    def busy(self, game_id: int) -> bool:
        """Whether this game's events are being told, or waiting to be."""
        return game_id in self._telling or bool(self._queues.get(game_id))

    async def flush(self, game_id: int) -> None:
        """Tell a game's queued events in commit order, and wait until they are told. A
        telling already under way picks the new ones up itself (this returns at once). A
        listener never changes a table while it is told of one (the calls would go down
        and come back up): that is a bug, and raises here, in the listener's call.

        The telling runs in a task of its own: cancelling the caller (a computer player
        whose game a person's move just ended) stops only its waiting, so every event
        queued, by it or by a later change counting on it, is still told."""
        telling = self._telling.get(game_id)
        if telling is not None and not telling.done():
            if telling is asyncio.current_task():
                raise RuntimeError(f"a listener changed game {game_id} while being told of it")
            return
        task = asyncio.create_task(self._tell_queued(game_id), name=f"telling-{game_id}")
        self._telling[game_id] = task
        task.add_done_callback(lambda done: self._ended(game_id, done))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            caller = asyncio.current_task()
            if task.cancelled() and caller is not None and not caller.cancelling():
                return  # a stop cut the telling (``halt``), not the caller
            if not task.done():
                task.add_done_callback(_unheard)  # (its caller is gone: a failure is logged)
            raise

    def _ended(self, game_id: int, task: asyncio.Task[None]) -> None:
        # (a telling cut before it began never ran its own ``finally``)
        if self._telling.get(game_id) is task:
            del self._telling[game_id]

    async def _tell_queued(self, game_id: int) -> None:
        try:
            through: int | None = None
            while True:
                queue = self._queues.get(game_id)
                told = True
                while queue:
                    event = queue.popleft()
                    told = await self._tell(event) and told
                    through = max(through or 0, event.table.ply)
                self._queues.pop(game_id, None)
                if told:
                    for hook in self._emptied:
                        await hook(game_id, through)
                if not self._queues.get(game_id):
                    return
                # (a change made while the hooks ran queued more, and its own flush
                # returned at once, counting on this one: tell them too)
        finally:
            if self._telling.get(game_id) is asyncio.current_task():
                del self._telling[game_id]

    async def settle(self) -> None:
        """Wait until no game's events are being told (tests, the demo)."""
        while self._telling:
            await asyncio.gather(*self._telling.values(), return_exceptions=True)

    def halt(self) -> list[asyncio.Task[Any]]:
        """Shutting down: every telling under way is cut (its tasks returned, to be
        awaited), so none is left to meet the connections closed under it. What it had
        not told is told again by the next start, or by another process (the final board
        owed, the promise not kept)."""
        tasks = list(self._telling.values())
        for task in tasks:
            task.cancel()
        return tasks

    async def tell(self, event: Event) -> bool:
        """One event to every listener and hearer now, outside any game's queue; False if
        a listener met the database away."""
        self._hear(event)
        return await self._tell(event)

    async def _tell(self, event: Event) -> bool:
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


def _unheard(task: asyncio.Task[None]) -> None:
    """A telling whose caller stopped waiting: a failure nobody hears of is logged, not
    left unretrieved (the database away is said once, by the store)."""
    if task.cancelled():
        return
    error = task.exception()
    if error is not None and not isinstance(error, StoreUnavailable):
        log.error("telling a game's events failed", exc_info=error)


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
        return await self._restorer.ending(game_id)

    async def how_it_ended(self, game_id: int) -> GameOver | None:
        """How a finished game ended, read from the store, its final board owed or not
        (None: not finished, or unknown): for a screen showing the end again after a
        restart (the Activity reconnecting)."""
        return await self._restorer.ending(game_id)

    async def shown(self, game_id: int) -> None:
        await self._store.games.end_shown(game_id)
