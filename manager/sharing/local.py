"""One process on SQLite: it holds every game, so it locks and schedules them itself.

The chores are the same as several processes keep in the database (``deadlines``), kept
here in a dict: written when a change lets its game's lock go, claimed when due, done by
the manager the same way. Nothing is shared, so there is nobody to tell and no cache to
catch up: except after a change the file could not take (``StoreUnavailable``: its disk
full, read-only), which may have left this process's table ahead of the store (a seat
taken, a deadline moved before the commit failed); the table is read again from the
store then, so "nothing changed" is what the person was told and what is true.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import replace

from store import StoreUnavailable

from ..deadlines import Chore, ChoreRule
from ..restore import Restorer
from ..table import Table, Tables
from ..timers import Clock
from .locks import GameLocks


class OneProcess:
    """The ``Sharing`` of a process that is alone with its database."""

    def __init__(self, tables: Tables, restorer: Restorer, clock: Clock, *,
                 rule: ChoreRule) -> None:
        self._tables = tables
        self._restorer = restorer
        self._clock = clock
        self._rule = rule
        self._locks = GameLocks()
        self._chores: dict[int, Chore] = {}
        self._claimed: dict[int, Chore] = {}  # what ``due`` claimed, as it claimed it
        self.closing = False

    @contextlib.asynccontextmanager
    async def locked(self, game_id: int) -> AsyncIterator[Table]:
        table = self._tables.find(game_id)
        async with self._locks.of(game_id):
            try:
                yield self._tables.get(game_id) or table
            except StoreUnavailable:
                await self._restorer.read_again(self._tables, game_id)  # (not saved)
                raise
            finally:
                self._schedule(game_id)
        if game_id not in self._tables:
            self._locks.forget(game_id)

    def busy(self, game_id: int) -> bool:
        return self._locks.locked(game_id)

    def holding_all(self) -> contextlib.AbstractAsyncContextManager[None]:
        return self._locks.holding_all()

    async def load(self) -> None:
        for table in await self._restorer.load_active():
            self._tables.put(table)

    async def start(self) -> None:
        for game_id in self._tables.ids():
            self._schedule(game_id)

    async def close(self) -> None:
        pass

    async def catch_up(self, game_id: int, *, for_a_click: bool = True) -> None:
        pass  # this process made every change itself

    async def created(self, table: Table) -> None:
        self._schedule(table.id)

    async def due(self, now: float) -> list[tuple[int, str]]:
        found = sorted((c.due_at or 0.0, g) for g, c in self._chores.items() if c.due(now))
        self._claimed = {}
        for _, game_id in found:
            chore = self._chores[game_id]
            self._chores[game_id] = self._claimed[game_id] = replace(
                chore, claimed_until=now + self._rule.claim)
        return [(game_id, self._chores[game_id].what) for _, game_id in found]

    def unclaim(self, game_ids: Collection[int]) -> None:
        for game_id in game_ids:
            chore = self._chores.get(game_id)
            if chore is not None and chore is self._claimed.get(game_id):
                # (a chore written since, by a change, is left as that change wrote it)
                self._chores[game_id] = replace(chore, claimed_until=None)

    async def schedule(self, game_id: int) -> None:
        self._schedule(game_id)

    def when_taken_over(self, hook: Callable[[], None]) -> None:
        pass  # nobody else owes anything here

    async def hold_again(self, game_id: int, last_ply: int) -> bool:
        return True  # (never asked: a SQLite commit always answers) nobody else changes it

    async def delivered(self, game_id: int, through: int | None) -> None:
        pass  # nobody else would show it

    def showing(self, game_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        return contextlib.nullcontext()

    def _schedule(self, game_id: int) -> None:
        table = self._tables.get(game_id)
        chore = self._rule.next_chore(table, self._clock.now(), playing_here=not self.closing)
        if chore.due_at is None:
            self._chores.pop(game_id, None)
        else:
            self._chores[game_id] = chore

    def chore_of(self, game_id: int) -> Chore | None:
        """What ``game_id`` waits for (None: nothing due at any time)."""
        return self._chores.get(game_id)
