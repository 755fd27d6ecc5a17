"""What the bot asks of Discord's gateway: its servers, and nothing else (issue 46, item 5).

Discord sends a bot only the events of the intents it asks for when it connects. The bot
listens to no message, typing, reaction, voice or presence, yet it asked for discord.py's
``Intents.default()``, which is every message, typing and reaction in every channel of every
server it is in: each one sent, decoded, parsed into a ``discord.Message`` and kept in a
cache of the last 1,000, work that grew with how busy its servers are, not with how much
they play (``python -m bench intents``: the same 50 games while the servers chat at 50
messages a second).

- **GUILDS**, the one it needs: GUILD_CREATE brings each server with its channels and
  threads, which give the names the bot shows ("#channel on Server" in every DM) and a
  server's language, and the threads the bot opens for games arrive as THREAD_CREATE.
- Interactions (slash commands, buttons, select menus, modals, in servers and in DMs) and
  READY come whatever a bot asks for, as each interaction brings the person who acted,
  with their name and permissions.
- No message intent: the bot reads no chat; after a restart it reads a channel's recent
  history through REST, which needs none. No privileged intent (Server Members, Presence,
  Message Content): none is to be switched on in the Developer Portal.
- No cache of messages (``max_messages=None``): none comes, and with none kept the bot
  cannot come to lean on one by accident.
"""

from __future__ import annotations

from typing import Any

import discord


def gateway_options() -> dict[str, Any]:
    """The client options of the above, for ``SequenceBot`` (options a caller passes win)."""
    return {"intents": discord.Intents(guilds=True), "max_messages": None}
