"""The bot's database at start: opened when it can be reached, said in one line if not.

A bot started while its PostgreSQL is down (the machine rebooting, both starting at once)
waits for it rather than exit or blame Discord: one line when it cannot be reached, with
the reason, one when it is (``database reached after 12.3 s``), nothing in between. A
fault that is no outage (a newer bot's database, a wrong password) is raised as it is.
Once running, outages are the store's to say (``store/outages.py``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time

from store import Store, StoreUnavailable, open_store

log = logging.getLogger(__name__)

RETRY_AT_START = 2.0  # seconds between two tries to reach the database at start


async def open_when_reachable(database_url: str | None,
                              database_path: str | os.PathLike[str], *,
                              every: float = RETRY_AT_START) -> Store:
    """``open_store(database_url, database_path)``, tried again every ``every`` seconds
    while the database cannot be reached."""
    began: float | None = None
    while True:
        try:
            store = await open_store(database_url, database_path)
        except StoreUnavailable as exc:
            if began is None:
                began = time.monotonic()
                log.warning("database unreachable at start: %s; trying again every %g s",
                            exc.reason, every)
            await asyncio.sleep(every)
            continue
        if began is not None:
            log.info("database reached after %.1f s", time.monotonic() - began)
        return store
