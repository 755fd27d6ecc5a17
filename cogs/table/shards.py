"""Which servers' tables this process looks after, when several processes share the shards.

Discord gives a server to shard ``(guild_id >> 22) % shard_count`` and every DM to shard 0.
The games themselves are in the shared database, so any process may play any of them (a DM
click for a server on shard 1 arrives at shard 0's process and is played there); only the
things a process does on its own initiative, such as showing its tables again after a
restart, are divided by shard, so two processes never both do them.
"""

from __future__ import annotations

import discord


def shard_of(guild_id: int | None, shard_count: int) -> int:
    """The shard Discord gives a server's events to (a DM, no server: shard 0)."""
    if guild_id is None or shard_count <= 1:
        return 0
    return (guild_id >> 22) % shard_count


def owns(bot: discord.Client, guild_id: int | None) -> bool:
    """Whether this process runs the shard of ``guild_id`` (always, unsharded)."""
    count = bot.shard_count or 1
    ids = getattr(bot, "shard_ids", None)
    if ids is None:
        ids = [bot.shard_id] if bot.shard_id is not None else list(range(count))
    return shard_of(guild_id, count) in ids
