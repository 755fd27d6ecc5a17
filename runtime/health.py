"""``/healthz``: is this process connected to Discord, and does its database answer?

For a supervisor (systemd, an orchestrator, a load balancer) to act on: healthy when every
shard this process runs has its gateway connection open and the database answers a
``SELECT 1`` in a write transaction (``Store.ping``: an answer means a move could be
saved now), unless the last write found the disk full or the file read-only and no write
has worked since (``Store.cannot_write``: the ping writes nothing, so it cannot see
those). Otherwise the first problem found, in one line.

Cheap and bounded, so it can be asked every few seconds: Discord's state is read from
discord.py without a request; the database is asked once at a time, and not waited for
beyond ``timeout`` seconds. A question the database does not answer in time is left to
finish in the background (cancelling a query the server does not answer can wait for the
server too), and the next look waits for that same question instead of asking another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import discord

from store import Store, StoreUnavailable

from .link import why_unreachable
from .metrics import shards_of

TIMEOUT = 2.0  # seconds the database has to answer before it counts as not answering


class Health:
    """The checks behind ``/healthz``. ``store()``: the bot's store (None until it is
    open); ``shard_ids``: the shards this process runs."""

    def __init__(self, bot: discord.Client, shard_ids: Sequence[int],
                 store: Callable[[], Store | None], *, timeout: float = TIMEOUT) -> None:
        self._bot = bot
        self._shard_ids = shard_ids
        self._store = store
        self.timeout = timeout
        self._asking: asyncio.Task[None] | None = None

    async def problem(self) -> str | None:
        """What is wrong, in one line; None when healthy."""
        return self.discord_problem() or await self.database_problem()

    def discord_problem(self) -> str | None:
        bot = self._bot
        if bot.is_closed():
            return "the connection to Discord is closed (the bot is stopping)"
        if not bot.is_ready():
            return "not connected to Discord yet"
        down = [shard for shard, up, _ in shards_of(bot, self._shard_ids) if not up]
        if not down:
            return None
        if not isinstance(bot, discord.AutoShardedClient):
            return "not connected to Discord (the gateway connection is down; reconnecting)"
        return (f"not connected to Discord (shard{'s' if len(down) > 1 else ''} "
                f"{', '.join(map(str, down))} down; reconnecting)")

    async def database_problem(self) -> str | None:
        store = self._store()
        if store is None:
            return "the database is not open yet"
        unwritable = store.cannot_write()
        if unwritable is not None:
            # what the last write found (no write of our own: it would fill the disk
            # further, and answer 200 whenever a page happened to be free)
            return f"the database cannot be written: {unwritable}"
        asking = self._asking
        if asking is None or asking.done():
            asking = self._asking = asyncio.create_task(store.ping(), name="health-ping")
            # a question left to finish after the timeout: its error is read here, so it
            # is never logged as "never retrieved"
            asking.add_done_callback(_read_outcome)
        done, _ = await asyncio.wait({asking}, timeout=self.timeout)
        if not done:
            return f"the database did not answer within {self.timeout:g} s"
        error = None if asking.cancelled() else asking.exception()
        if error is not None:
            reason = (error.reason if isinstance(error, StoreUnavailable)
                      else why_unreachable(error))
            return f"the database does not answer: {one_line(reason)}"
        return None

    async def close(self) -> None:
        asking, self._asking = self._asking, None
        if asking is not None and not asking.done():
            asking.cancel()
            # waits without raising (its outcome is read by ``_read_outcome``), and a
            # cancel of close itself is not swallowed
            await asyncio.wait({asking}, timeout=1.0)


def _read_outcome(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()


def one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"
