"""What several bot processes on one PostgreSQL need from it to share the games.

No game lives in one process's memory as the source of truth: each process may cache a
game, but changes it only while holding that game's lock in the database, after checking
the stored version against its cache. Three things here, all PostgreSQL's own:

- **A game's lock**: ``pg_advisory_lock(GAME_LOCKS, game_id)`` on one pooled connection,
  held from the check to the commit. While a task holds it, the store's reads and writes
  in that task run on the same connection (``held_connection``), so a process never needs
  a second connection to finish what it locked, and a pool as small as the number of games
  changing at once cannot deadlock. If the process dies, its connection closes and
  PostgreSQL lets the lock go: nothing to clean up.
- **A game's version**: the row's ``xmin`` (the transaction that last wrote it). Every
  change of a game writes its ``games`` row (a move its snapshot, a lobby its deadline, an
  end its status), so an unchanged ``xmin`` means an unchanged game: no migration needed.
- **Change notices**: ``NOTIFY sequence_games, '<game id> <version>'`` after a change,
  heard by every other process through ``LISTEN`` on one dedicated connection, so their
  caches follow within milliseconds (a process that misses one finds out at its next check
  anyway). The version lets a process that already holds it (its own change) skip the
  query; a notice without one (a lobby just made, or a process of an older release) is
  followed by a query.
- **Chores**: each active game's next scheduled work (what ``manager/deadlines.py``
  says is due next), one row rewritten last in every change's transaction, claimed by any
  process with ``FOR UPDATE SKIP LOCKED`` when it is due.

How long a claim or a promise lasts is the caller's to say (the rules live with the
manager, in ``deadlines``): the store only keeps the rows. Every method runs inside the
database's ``faults()``: a database that went away raises ``StoreUnavailable`` here too.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import asyncpg

from .backend import ChoreRow
from .postgres import (
    CONNECT_TIMEOUT,
    LOCK_WAIT,
    SESSION_PREFIX,
    PostgresDatabase,
    broken,
    connect_whole,
    held_connection,
    hold_on,
    holding,
)
from .session_locks import SessionLocks
from .status import OPEN_SQL

log = logging.getLogger(__name__)

#: The first key of every game's advisory lock (the second is the game id), so the locks
#: never meet the migration lock or another application's.
GAME_LOCKS = 0x5E9
SHOWING_LOCKS = 0x5EA  # showing a table again (two processes never both post what is missing)
CHANNEL = "sequence_games"


# The promise to announce, written first in the transaction of every change made under
# the lock; ``from_ply`` is the game's number of stored moves before the first change the
# promise is for (kept while the promise is renewed: the oldest untold change).
WRITE_PROMISE = ("INSERT INTO deliveries (game_id, owner, until, from_ply)"
                 " VALUES ($1, $2, extract(epoch from clock_timestamp()) + $3,"
                 " (SELECT count(*) FROM actions WHERE game_id = $1))"
                 " ON CONFLICT (game_id, owner) DO UPDATE SET until = excluded.until")
# Written last in the same transaction (with the chore: ``SCHEDULE_AND_PROMISE_THROUGH``):
# how many moves the game has now that the change is made (a promise is kept only by
# telling the game through them: ``delivered``); ``$6`` the promise's owner.
PROMISE_THROUGH = """kept AS (
    UPDATE deliveries SET through_ply = (SELECT count(*) FROM actions WHERE game_id = $1)
    WHERE game_id = $1 AND owner = $6)"""
# Whether the process named ``owner`` is gone: none of its connections is open any more
# (each says who it is in application_name: ``postgres.SESSION_PREFIX``), and the server
# has been up for ``{grace}`` seconds at least: a server that just started cut every
# process's connections, and each needs a moment to connect again. (The server's own
# start, not this process's last outage: a look of this process that took too long, or
# its own connections cut, says nothing of whether another process is alive.)
GONE = """(extract(epoch from clock_timestamp() - pg_postmaster_start_time()) >= {grace}
    AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a
        WHERE a.application_name = '{prefix}' || {owner}))"""
# A promise anyone may take over: its time ran out, or its process is gone.
TAKEABLE = ("({table}.until < extract(epoch from clock_timestamp()) OR "
            + GONE.format(prefix=SESSION_PREFIX, owner="{table}.owner", grace="{grace}")
            + ")")
# Take over the promises whose time ran out, or whose process is gone: in one statement,
# so two processes never take the same one (SKIP LOCKED), and each taken one is now owed
# by the taker.
TAKE_OVER = """
WITH overdue AS (
    DELETE FROM deliveries WHERE (game_id, owner) IN (
        SELECT game_id, owner FROM deliveries
        WHERE """ + TAKEABLE.format(table="deliveries", grace="$3") + """
        FOR UPDATE SKIP LOCKED LIMIT 50)
    RETURNING game_id, from_ply, through_ply)
INSERT INTO deliveries (game_id, owner, until, from_ply, through_ply)
SELECT game_id, $1, extract(epoch from clock_timestamp()) + $2, MIN(from_ply),
    MAX(through_ply) FROM overdue
GROUP BY game_id
ON CONFLICT (game_id, owner) DO UPDATE SET until = excluded.until,
    from_ply = LEAST(deliveries.from_ply, excluded.from_ply),
    through_ply = GREATEST(deliveries.through_ply, excluded.through_ply)
RETURNING game_id, from_ply
"""

# After a change, in one round trip: the game's version as the change left it, and, when it
# moved from ``$2`` (the version before), the notice to the other processes with it (the
# same version read twice would be two round trips, and a move waits for them).
TELL = """
SELECT version, CASE WHEN version IS DISTINCT FROM $2
    THEN pg_notify($3, $1::text || coalesce(' ' || version, '')) END IS NULL
FROM (SELECT (SELECT xmin::text FROM games WHERE id = $1) AS version) AS game
"""

# A game's next chore, written last in the transaction of its change: the game's row is
# already as the change left it, so a game that ended (or never was) gets no chore, and
# loses the one it had. One statement: one round trip more per change.
SCHEDULE = """
WITH active AS (
    SELECT id FROM games WHERE id = $1 AND status IN """ + OPEN_SQL + """),
gone AS (
    DELETE FROM chores WHERE game_id = $1 AND NOT EXISTS (SELECT 1 FROM active))
INSERT INTO chores (game_id, what, due_at, claimed_by, claimed_until)
SELECT id, $2, $3, $4, $5 FROM active
ON CONFLICT (game_id) DO UPDATE SET what = excluded.what, due_at = excluded.due_at,
    claimed_by = excluded.claimed_by, claimed_until = excluded.claimed_until
"""
# The same with the promise's count of moves in it: a change under a promise writes both
# last, and one statement is one round trip less for every move. (Every data-modifying
# part of a WITH runs, read or not; it counts the moves this transaction inserted before.)
SCHEDULE_AND_PROMISE_THROUGH = SCHEDULE.replace(
    "WITH active AS (", "WITH " + PROMISE_THROUGH + ",\nactive AS (", 1)
# Claim what is due and not claimed by a live process still in time, in one statement:
# two processes never claim one row (SKIP LOCKED), and the oldest due go first. A claim
# runs out at ``claimed_until`` (a process alive but stuck), or at once when its process
# is gone (killed: its connections closed), or when its own process asks again ($6: the
# chores it claimed and could not do, the database gone meanwhile).
CLAIM_DUE = """
UPDATE chores SET claimed_by = $1, claimed_until = $2 + $3
WHERE game_id IN (
    SELECT game_id FROM chores
    WHERE due_at <= $2 AND (claimed_until IS NULL OR claimed_until < $2
        OR (claimed_by = $1 AND game_id = ANY($6::bigint[]))
        OR """ + GONE.format(prefix=SESSION_PREFIX, owner="chores.claimed_by",
                             grace="$5") + """)
        AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.game_id = chores.game_id
            AND d.owner <> $1 AND """ + TAKEABLE.format(table="d", grace="$5") + """)
    ORDER BY due_at FOR UPDATE SKIP LOCKED LIMIT $4)
RETURNING game_id, what
"""
# Every active game has a chore row; one that has none (a lobby just made, a game copied
# from SQLite, a database from before chores) gets a look now. Rows of ended games go.
HEAL = """
WITH gone AS (
    DELETE FROM chores c WHERE NOT EXISTS (
        SELECT 1 FROM games g WHERE g.id = c.game_id AND g.status IN """ + OPEN_SQL + """))
INSERT INTO chores (game_id, what, due_at)
SELECT g.id, $1, $2 FROM games g
WHERE g.status IN """ + OPEN_SQL + """
    AND NOT EXISTS (SELECT 1 FROM chores c WHERE c.game_id = g.id)
ON CONFLICT (game_id) DO NOTHING
"""


class SharedGames:
    """Locks, versions and change notices of the games in one PostgreSQL database."""

    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db
        #: this process's name among the others sharing the database (its connections
        #: carry it, so the others can see whether it is still alive)
        self.session = db.session
        self._listener: asyncpg.Connection | None = None
        self._heard: Callable[[int, str | None], None] | None = None
        self._lost: Callable[[], None] | None = None

    @contextlib.asynccontextmanager
    async def locked(self, game_id: int, owner: str | None = None,
                     space: int = GAME_LOCKS, chore: Callable[[], ChoreRow] | None = None,
                     promise: float = 0.0) -> AsyncIterator[None]:
        """Hold ``game_id``'s lock (waiting while another process holds it). With an
        ``owner``, every write made meanwhile also promises, in its own transaction, that
        ``owner`` will deliver the change's announcements within ``promise`` seconds
        (``delivered`` keeps it); with a ``chore``, it also writes the game's next chore as
        ``chore()`` says when the write commits (the game as the change left it)."""
        if not 0 <= game_id < 2**31:
            raise ValueError(f"game id {game_id} does not fit an advisory lock key")
        also = (WRITE_PROMISE, (game_id, owner, promise)) if owner is not None else None

        def after() -> Sequence[tuple[str, tuple[Any, ...]]]:
            assert chore is not None
            return self._schedule(game_id, chore(), owner, promised=owner is not None)

        with self._db.faults():
            async with self._db.pool.acquire() as conn:
                await self._db.locks.lock(conn, space, game_id, timeout=LOCK_WAIT)
                try:
                    with holding(conn, also, after if chore is not None else None):
                        try:
                            yield
                        finally:
                            again = held_connection()
                            if again is not None and again is not conn:  # (hold_again)
                                await _unlock(self._db.locks, again, space, game_id)
                                await self._db.pool.release(again)
                finally:
                    await _unlock(self._db.locks, conn, space, game_id)

    async def hold_again(self, game_id: int) -> None:
        """This task's lock of ``game_id`` went with its connection (a commit whose answer
        was lost): take it again on another connection, which carries the rest of the
        change and is let go with the lock. (A connection still open still holds it.)"""
        held = held_connection()
        if held is None:
            raise RuntimeError(f"this task does not hold game {game_id}'s lock")
        if not broken(held):
            return
        with self._db.faults():
            conn = await self._db.pool.acquire()
            try:
                await self._db.locks.lock(conn, GAME_LOCKS, game_id, timeout=LOCK_WAIT)
            except BaseException:
                await self._db.pool.release(conn)
                raise
        hold_on(conn)

    def showing(self, game_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        """Held while a process shows a table again (after a restart, or taking over)."""
        return self.locked(game_id, space=SHOWING_LOCKS)

    async def delivered(self, game_id: int, owner: str, through: int) -> None:
        """``owner`` posted every announcement it owed for ``game_id``, the game told
        through its first ``through`` moves: the promise goes, unless a change made
        meanwhile promised more (its moves are still being told)."""
        with self._db.faults():
            await self._db.pool.execute(
                "DELETE FROM deliveries WHERE game_id = $1 AND owner = $2"
                " AND (through_ply IS NULL OR through_ply <= $3)", game_id, owner, through)

    async def take_over(self, owner: str, promise: float, *, grace: float = 0.0
                        ) -> list[tuple[int, int | None]]:
        """The games whose owed announcements nobody delivered in time, or whose process is
        gone, now owed by ``owner`` (for ``promise`` seconds): (game id, the number of its
        moves stored before the first untold change, None if not known). ``grace``: for
        that many seconds after the server started, a process without connections is not
        gone (only promises whose time ran out are taken): it may be connecting again."""
        with self._db.faults():
            rows = await self._db.pool.fetch(TAKE_OVER, owner, promise, float(grace))
        return [(int(r[0]), None if r[1] is None else int(r[1])) for r in rows]

    @staticmethod
    def _schedule(game_id: int, chore: ChoreRow, owner: str | None, *,
                  promised: bool = False) -> list[tuple[str, tuple[Any, ...]]]:
        """The statement writing ``chore``; ``promised``: with ``owner``'s promise's count
        of moves (``PROMISE_THROUGH``)."""
        what, due_at, claimed_until = chore
        claimed_by = owner if claimed_until is not None else None
        args = (game_id, what, due_at, claimed_by, claimed_until)
        if promised:
            return [(SCHEDULE_AND_PROMISE_THROUGH, (*args, owner))]
        return [(SCHEDULE, args)]

    async def schedule(self, game_id: int, chore: ChoreRow, owner: str | None) -> None:
        """Write ``game_id``'s next chore now (after a chore that changed nothing: its
        claim goes, and the row says what the game waits for)."""
        held = held_connection()
        with self._db.faults():
            async with contextlib.AsyncExitStack() as stack:
                conn: asyncpg.Connection = (
                    held if held is not None
                    else await stack.enter_async_context(self._db.pool.acquire()))
                async with conn.transaction():
                    for sql, args in self._schedule(game_id, chore, owner):
                        await conn.execute(sql, *args)

    async def claim_due(self, owner: str, now: float, claim: float, limit: int = 50, *,
                        grace: float = 0.0, again: Sequence[int] = ()
                        ) -> list[tuple[int, str]]:
        """The chores due at ``now`` that nobody holds a live claim on, now ``owner``'s
        for ``claim`` seconds: (game id, what), by game id (``limit`` at a time, the
        longest due first, so a backlog is worked off in order). ``grace``: as in
        ``take_over``. ``again``: games whose chore ``owner`` claimed before and may
        claim again now, its claim still running."""
        with self._db.faults():
            rows = await self._db.pool.fetch(CLAIM_DUE, owner, now, claim, limit,
                                             float(grace), list(again))
        return sorted(((int(r[0]), str(r[1])) for r in rows), key=lambda r: r[0])

    async def heal(self, now: float, look: str) -> None:
        """Give every active game without a chore one of kind ``look`` due ``now``, and
        drop ended games' chores."""
        with self._db.faults():
            await self._db.pool.execute(HEAL, look, now)

    async def release(self, owner: str) -> None:
        """``owner`` stops: its claims go at once, for the others to take (a process that
        dies instead lets them run out)."""
        with self._db.faults():
            await self._db.pool.execute(
                "UPDATE chores SET claimed_by = NULL, claimed_until = NULL"
                " WHERE claimed_by = $1", owner)

    async def chore_of(self, game_id: int) -> tuple[str, float | None, str | None,
                                                    float | None] | None:
        """A game's chore row as stored (what, due_at, claimed_by, claimed_until)."""
        with self._db.faults():
            row = await self._db.pool.fetchrow(
                "SELECT what, due_at, claimed_by, claimed_until FROM chores"
                " WHERE game_id = $1", game_id)
        if row is None:
            return None
        return (str(row[0]), row[1], row[2], row[3])

    async def version(self, game_id: int) -> str | None:
        """The game row's version (``xmin``), None if there is no such game."""
        conn = held_connection()
        with self._db.faults():
            if conn is not None:
                found = await conn.fetchval("SELECT xmin::text FROM games WHERE id = $1",
                                            game_id)
            else:
                found = await self._db.pool.fetchval(
                    "SELECT xmin::text FROM games WHERE id = $1", game_id)
        return str(found) if found is not None else None

    async def active_versions(self) -> dict[int, str]:
        """Every lobby and game in play, with its version."""
        with self._db.faults():
            rows = await self._db.pool.fetch(
                "SELECT id, xmin::text FROM games WHERE status IN " + OPEN_SQL)
        return {int(r[0]): str(r[1]) for r in rows}

    async def tell(self, game_id: int, since: str | None) -> str | None:
        """After a change: the game's version now (None if there is no such game), and
        the other processes told of it when it is not ``since`` (the version before)."""
        conn = held_connection()
        with self._db.faults():
            if conn is not None:
                found = await conn.fetchval(TELL, game_id, since, CHANNEL)
            else:
                found = await self._db.pool.fetchval(TELL, game_id, since, CHANNEL)
        return str(found) if found is not None else None

    async def notify(self, game_id: int) -> None:
        """Tell the other processes that ``game_id`` changed (its version not said)."""
        conn = held_connection()
        with self._db.faults():
            if conn is not None:
                await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, str(game_id))
            else:
                await self._db.pool.execute("SELECT pg_notify($1, $2)", CHANNEL,
                                            str(game_id))

    async def listen(self, heard: Callable[[int, str | None], None],
                     lost: Callable[[], None] | None = None) -> None:
        """Call ``heard(game_id, version)`` for every change a process announces, its own
        included (``version`` None when the notice did not say it), on one dedicated
        connection (``listening`` says whether it is still up), and ``lost()`` when that
        connection goes (the database went away): then listen again."""
        self._heard = heard
        self._lost = lost
        with self._db.faults():
            conn = await connect_whole(self._db.url, timeout=CONNECT_TIMEOUT,
                                       server_settings={
                                           "application_name": SESSION_PREFIX
                                           + self._db.session})
            try:
                await conn.add_listener(CHANNEL, self._on_notice)
            except BaseException:
                conn.terminate()
                raise
        conn.add_termination_listener(self._on_lost)
        self._listener = conn

    def _on_lost(self, conn: Any) -> None:
        if conn is self._listener and self._lost is not None:
            self._lost()

    @property
    def listening(self) -> bool:
        return self._listener is not None and not self._listener.is_closed()

    def _on_notice(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        # our own notices come back too (the listener is a session of its own): the
        # manager finds its cache already at that version and does nothing
        if self._heard is not None:
            game, _, version = payload.partition(" ")
            with contextlib.suppress(ValueError):
                self._heard(int(game), version or None)

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        self._lost = None
        if listener is not None and not listener.is_closed():
            with contextlib.suppress(asyncpg.PostgresError, OSError, asyncpg.InterfaceError):
                await listener.close()


async def _unlock(locks: SessionLocks, conn: asyncpg.Connection, space: int, game_id: int
                  ) -> None:
    """Let a game's lock go (a connection that broke lost it with its session: nothing to
    undo then)."""
    with contextlib.suppress(asyncpg.PostgresError, OSError, asyncpg.InterfaceError,
                             asyncpg.exceptions.InternalClientError):
        await locks.unlock(conn, space, game_id)
