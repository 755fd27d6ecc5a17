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
from typing import Any

import asyncpg


class SessionLocks:
    """The advisory locks the connections of one pool may hold (by server process id)."""

    def __init__(self) -> None:
        self._taken: Counter[int] = Counter()

    async def lock(self, conn: asyncpg.Connection, sql: str, *key: int,
                   timeout: float | None = None) -> None:
        """Take a lock with ``sql`` (``SELECT pg_advisory_lock(...)``): counted before it
        is asked, so a wait cut short still has the connection reset in full."""
        self._taken[conn.get_server_pid()] += 1
        await conn.execute(sql, *key, timeout=timeout)

    async def unlock(self, conn: asyncpg.Connection, sql: str, *key: int) -> None:
        """Let a lock go with ``sql`` (``SELECT pg_advisory_unlock(...)``); counted only
        once the server said so (raises as ``execute`` does)."""
        await conn.execute(sql, *key)
        pid = conn.get_server_pid()
        self._taken[pid] -= 1
        if self._taken[pid] <= 0:
            del self._taken[pid]

    def may_hold(self, conn: Any) -> bool:
        return self._taken.get(conn.get_server_pid(), 0) > 0

    async def reset(self, conn: asyncpg.Connection) -> None:
        """The pool's ``reset``: asyncpg's own full reset only for a connection that may
        still hold a lock."""
        pid = conn.get_server_pid()
        if self._taken.pop(pid, 0) > 0:
            query = conn.get_reset_query()
            if query:
                await conn.execute(query)
