"""The bot's slash commands on Discord: when they are synced, and a line saying where.

A global sync reaches every server but Discord may take up to an hour to show it, and it
counts against a daily limit: the bot syncs globally only when the commands changed (their
digest is kept in the database, so several processes sharing it sync once), and to a dev
server at once when ``DEV_GUILD_ID`` names one.

A global sync is a bulk overwrite of every global command. An application with an
Activity has one command the bot does not declare: its entry point (application command
type 4, ``PRIMARY_ENTRY_POINT``, which Discord makes when Activities are turned on, and
which opens the Activity from the App Launcher). Discord refuses an overwrite that leaves
it out (error 50240), so the global sync reads the commands first and carries every entry
point over as it is.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from typing import Any

import discord
from discord import app_commands

from store import GameLog

from .settings import Settings

log = logging.getLogger("sequence")

COMMANDS_DIGEST = "commands_digest"  # the bot fact: what the last global sync sent
ENTRY_POINT = 4  # application command type PRIMARY_ENTRY_POINT (discord.py has no name)
# what Discord adds to a command it holds, which an overwrite does not send back
_HELD_ONLY = ("application_id", "version", "guild_id")


class AnnouncedTree(app_commands.CommandTree):
    """The command tree that says where the commands were synced (a start-up line), and
    syncs globally keeping the entry point (``sync_globally``)."""

    synced = False

    async def sync(self, *, guild: discord.abc.Snowflake | None = None
                   ) -> list[app_commands.AppCommand]:
        if guild is None:
            commands_ = await sync_globally(self)
        else:
            commands_ = await super().sync(guild=guild)
            log.info("commands synced to the dev server %d (%s)", guild.id, _count(commands_))
        self.synced = True
        return commands_


async def sync_globally(tree: app_commands.CommandTree) -> list[app_commands.AppCommand]:
    """The global overwrite (as ``CommandTree.sync`` sends it, translated), with the
    application's entry point commands carried over as Discord holds them."""
    client = tree.client
    app_id = client.application_id
    if app_id is None:
        raise app_commands.MissingApplicationID
    held = await client.http.get_global_commands(app_id)
    kept = [{k: v for k, v in dict(c).items() if k not in _HELD_ONLY}
            for c in held if int(c.get("type") or 1) == ENTRY_POINT]
    translator = tree.translator
    mine = tree.get_commands()
    payload: list[dict[str, Any]] = (
        [await c.get_translated_payload(tree, translator) for c in mine] if translator
        else [c.to_dict(tree) for c in mine])
    try:
        data = await client.http.bulk_upsert_global_commands(app_id, payload=payload + kept)
    except discord.HTTPException as exc:
        if exc.status == 400 and exc.code == 50035:
            raise app_commands.CommandSyncFailure(exc, mine) from None
        raise
    commands_ = [app_commands.AppCommand(data=d, state=client._connection) for d in data
                 if int(d.get("type") or 1) != ENTRY_POINT]
    log.info("commands synced globally (%s%s; Discord may take up to an hour to show a "
             "change everywhere)", _count(commands_),
             ", the Activity's entry point kept" if kept else "")
    return commands_


def _count(commands_: list[app_commands.AppCommand]) -> str:
    return f"{len(commands_)} command{'' if len(commands_) == 1 else 's'}"


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
    if isinstance(tree, AnnouncedTree):
        await tree.sync()
    else:
        await sync_globally(tree)
    await facts.save_bot_fact(COMMANDS_DIGEST, digest, now=time.time())
