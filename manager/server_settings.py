"""A server's settings, and how a change of them reaches the tables already open.

The settings themselves are the store's (``guild_settings``). What a change does to a
running game is the rule of ``HouseRules``: a table follows its server wherever its game did
not choose for itself. Here that rule is applied to every open table of the server, one at
a time under its lock (``Steps.follow_server`` saves it with the table: the other processes
read the table again, and its next chore is written again), then the table's change is
told, as after any other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from store import GuildSettings, Store

from . import lobby as rules
from .errors import ManagerError
from .sharing import Sharing
from .step import Steps
from .table import Table, Tables
from .timers import Clock


class ServerSettings:
    """Reads and changes servers' settings; ``after(table)``: what follows any change of a
    table once its lock is let go (the manager's)."""

    def __init__(self, store: Store, tables: Tables, sharing: Sharing, steps: Steps,
                 clock: Clock, after: Callable[[Table], Awaitable[None]]) -> None:
        self._store = store
        self._tables = tables
        self._sharing = sharing
        self._steps = steps
        self._clock = clock
        self._after = after

    async def of(self, guild_id: int) -> GuildSettings:
        return await self._store.games.guild_settings(guild_id)

    async def change(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Check, save and apply a change of ``guild_id``'s settings; the new settings."""
        rules.check_settings(changes)
        settings = replace(await self.of(guild_id), **changes)
        await self._store.games.save_guild_settings(settings, now=self._clock.now())
        for game_id in [t.id for t in self._tables.all() if t.guild_id == guild_id]:
            try:
                async with self._sharing.locked(game_id) as table:
                    await self._steps.follow_server(table, settings)
            except ManagerError as exc:
                if exc.code != "no_such_game":
                    raise
                continue  # it ended meanwhile
            await self._after(table)
        return settings
