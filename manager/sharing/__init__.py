"""How a process shares its games: one interface, two strategies.

What differs between one bot process on SQLite and several on one PostgreSQL is only this:
how a game is locked (and its cache trusted), where what is due next is kept and who does
it, and how the others hear of a change. The manager talks to one ``Sharing`` and never
asks which it is:

- ``local.OneProcess`` (SQLite): the game locks are this process's asyncio locks, what is
  due is kept in memory, nobody else needs telling.
- ``shared_database.SharedDatabase`` (PostgreSQL): a game's lock is also an advisory lock in the
  database and brings the cache to the stored version; what is due is a ``chores`` row
  written in each change's transaction and claimed by any live process; changes are
  announced with ``NOTIFY``; announcements a process owes are promised in the database and
  taken over if it dies.

The rules both follow (what is due next, the claim times) are ``deadlines``'s, written
once. ``sharing_for`` picks the strategy from the store, importing the PostgreSQL one (and
asyncpg) only for a PostgreSQL store.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from store import Store

from ..deadlines import PROMISE, ChoreRule
from ..outbox import FinalBoards, Outbox
from ..restore import Restorer
from ..table import Table, Tables
from ..tally import Tally
from ..timers import Clock
from .local import OneProcess

RESYNC_INTERVAL = 5.0  # seconds between two looks at every active game's stored version


class Sharing(Protocol):
    """What the manager needs to know nothing of the other processes."""

    #: set while the process shuts down: a computer's turn is then left for others at once
    closing: bool

    def locked(self, game_id: int) -> AbstractAsyncContextManager[Table]:
        """Hold ``game_id``'s lock; inside, the table as stored now (refuses
        ``no_such_game`` for a game not held here). Every change is made inside."""
        ...

    def busy(self, game_id: int) -> bool:
        """Whether a change of ``game_id`` is under way in this process."""
        ...

    def holding_all(self) -> AbstractAsyncContextManager[None]:
        """Every game's lock in this process (waiting for the changes under way)."""
        ...

    async def load(self) -> None:
        """Hold every lobby and game in play (start-up)."""

    async def start(self) -> None:
        """Start following the others (if any), and give every table its next chore."""

    async def close(self) -> None: ...

    async def catch_up(self, game_id: int, *, for_a_click: bool = True) -> None:
        """Before reading a game: bring it to its stored version. ``for_a_click``: a
        person waits for the answer (within Discord's 3 s), so a database slower than
        that counts as away; the background (the timer loop) waits as long as any
        statement may."""

    async def created(self, table: Table) -> None:
        """A lobby was made here (outside any lock): its first chore; tell the others."""

    async def due(self, now: float) -> list[tuple[int, str]]:
        """The chores due at ``now`` (game id, what), claimed by this process."""
        ...

    def unclaim(self, game_ids: Collection[int]) -> None:
        """Chores ``due`` claimed that were not done (the database went away): they are
        due again as soon as it answers, not when the claim runs out (``CHORE_CLAIM``)."""

    async def schedule(self, game_id: int) -> None:
        """Write ``game_id``'s next chore now (its lock held): after a chore that changed
        nothing, so the claim goes."""

    def when_taken_over(self, hook: Callable[[], None]) -> None:
        """Call ``hook()`` after this process took over what another one owed (its chores,
        held back until then, are due now)."""

    async def hold_again(self, game_id: int, last_ply: int) -> bool:
        """After a commit whose answer was lost, found kept (``doubt``): hold the game's
        lock again (it went with the connection) and say whether the stored game still
        ends at ``last_ply``. False: it went on meanwhile (another process changed it),
        and this process's table has been read again."""
        ...

    async def delivered(self, game_id: int, through: int | None) -> None:
        """Every event of ``game_id`` queued here was told, the game through ``through``
        moves (None: no event was told this time)."""

    def showing(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """Held while a table is shown again after a restart or a take-over."""
        ...


def sharing_for(store: Store, tables: Tables, restorer: Restorer, outbox: Outbox,
                final_boards: FinalBoards, clock: Clock, *, rule: ChoreRule,
                promise: float = PROMISE, resync_every: float = RESYNC_INTERVAL,
                tally: Tally | None = None) -> Sharing:
    """The strategy for ``store``'s backend, told when each game's events were told
    (``rule``: what each table waits for next; ``tally``: where several processes count
    the tables taken over)."""
    sharing: Sharing
    if store.backend == "postgres":
        # only here: a SQLite bot never loads asyncpg
        from .shared_database import SharedDatabase

        sharing = SharedDatabase(store, tables, restorer, outbox, final_boards, clock,
                                 rule=rule, promise=promise, resync_every=resync_every,
                                 tally=tally or Tally())
    else:
        sharing = OneProcess(tables, restorer, clock, rule=rule)
    outbox.when_emptied(sharing.delivered)
    return sharing


__all__ = ["RESYNC_INTERVAL", "Sharing", "sharing_for"]
