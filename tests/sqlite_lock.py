"""Another program holding a SQLite file's write lock: a ``sqlite3`` shell left in a
transaction, say. A real second process, so the lock is taken as SQLite takes it between
programs (a file lock), not between two connections of the bot's own process."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


@asynccontextmanager
async def another_program_holds_the_write_lock(path: Path) -> AsyncIterator[None]:
    """Inside, a second process holds ``path``'s write lock; it lets go on the way out."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert await asyncio.to_thread(holder.stdout.readline) == "locked\n"
        yield
    finally:
        await asyncio.to_thread(holder.communicate, "", 10)
