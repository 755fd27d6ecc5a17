"""Session-level advisory locks on pooled PostgreSQL connections, and the pool's reset
that knows of them.

asyncpg resets every connection it takes back into its pool with one more round trip to
the server (``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``), a safety net
for a session left holding something. The store's pooled connections change one kind of
session state only: advisory locks (a game's lock, the migration lock); they set no
variable, open no cursor and listen on a connection of their own. So a connection is reset
in full only while it may still hold such a lock (taken, and not known to be let go: a
lock whose wait timed out, or an unlock that failed); every other release costs no round
trip. A transaction left open is still rolled back by asyncpg itself before this reset.
"""

from __future__ import annotations

from collections import Counter

import asyncpg

#: A lock of one key (the migration's) or of two (a space, a game id): session-level.
LOCK_ONE = "SELECT pg_advisory_lock($1)"
LOCK_TWO = "SELECT pg_advisory_lock($1, $2)"
UNLOCK_ONE = "SELECT pg_advisory_unlock($1)"
UNLOCK_TWO = "SELECT pg_advisory_unlock($1, $2)"


class SessionLocks:
    """The advisory locks the connections of one pool may hold (by server process id)."""

    def __init__(self) -> None:
        self._taken: Counter[int] = Counter()

    async def lock(self, conn: asyncpg.Connection, *key: int,
                   timeout: float | None = None) -> None:
        """Take the lock of ``key`` (one number, or two), waiting for it: counted before
        it is asked, so a wait cut short still has the connection reset in full."""
        self._taken[conn.get_server_pid()] += 1
        if len(key) == 1:
            await conn.execute(LOCK_ONE, *key, timeout=timeout)
        else:
            await conn.execute(LOCK_TWO, *key, timeout=timeout)

    async def unlock(self, conn: asyncpg.Connection, *key: int) -> None:
        """Let the lock of ``key`` go; counted only once the server said so (raises as
        ``execute`` does)."""
        if len(key) == 1:
            await conn.execute(UNLOCK_ONE, *key)
        else:
            await conn.execute(UNLOCK_TWO, *key)
        pid = conn.get_server_pid()
        self._taken[pid] -= 1
        if self._taken[pid] <= 0:
            del self._taken[pid]

    async def reset(self, conn: asyncpg.Connection) -> None:
        """The pool's ``reset``: asyncpg's own full reset only for a connection that may
        still hold a lock."""
        if self._taken.pop(conn.get_server_pid(), 0) > 0:
            full = conn.get_reset_query()
            if full:
                await conn.execute(full)
