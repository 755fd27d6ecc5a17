"""The bot's slash commands on Discord: when they are synced, and a line saying where.

A global sync reaches every server but Discord may take up to an hour to show it, and it
counts against a daily limit: the bot syncs globally only when the commands changed (their
digest is kept in the database, so several processes sharing it sync once), and to a dev
server at once when ``DEV_GUILD_ID`` names one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time

import discord
from discord import app_commands

from engine.manager.store import GameLog

from .settings import Settings

log = logging.getLogger("sequence")

COMMANDS_DIGEST = "commands_digest"  # the bot fact: what the last global sync sent


class AnnouncedTree(app_commands.CommandTree):
    """The command tree that says where the commands were synced (a start-up line)."""

    synced = False

    async def sync(self, *, guild: discord.abc.Snowflake | None = None
                   ) -> list[app_commands.AppCommand]:
        commands_ = await super().sync(guild=guild)
        self.synced = True
        count = f"{len(commands_)} command{'' if len(commands_) == 1 else 's'}"
        if guild is not None:
            log.info("commands synced to the dev server %d (%s)", guild.id, count)
        else:
            log.info("commands synced globally (%s; Discord may take up to an hour to show "
                     "a change everywhere)", count)
        return commands_


async def sync_commands(tree: app_commands.CommandTree, settings: Settings, facts: GameLog
                        ) -> None:
    """Dev server: sync there at once. Otherwise sync globally only when they changed.

    With several processes only the one that runs shard 0 syncs (exactly one does:
    Discord lets one session hold a shard), so processes starting together never race
    to sync; the others find the digest it saved."""
    if not settings.runs_shard_zero:
        return
    if settings.dev_guild_id is not None:
        guild = discord.Object(settings.dev_guild_id)
        tree.copy_global_to(guild=guild)
        await tree.sync(guild=guild)
        return
    payload = [c.to_dict(tree) for c in tree.get_commands()]
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    if await facts.bot_fact(COMMANDS_DIGEST) == digest:
        return
    await tree.sync()
    await facts.save_bot_fact(COMMANDS_DIGEST, digest, now=time.time())
