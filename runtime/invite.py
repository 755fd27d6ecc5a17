"""The link that adds the bot to a server, and the permissions it asks for.

docs/ADMIN.md says why each permission is needed; ``make invite`` prints the link.
"""

from __future__ import annotations

import discord


def bot_permissions() -> discord.Permissions:
    """Exactly what the bot does in a server's channels (docs/ADMIN.md says why, one by one)."""
    return discord.Permissions(
        view_channel=True,  # see the channel it plays in (and so its history)
        send_messages=True,  # lobbies, turns, the end of a game
        embed_links=True,  # rules, stats and leaderboards are embeds
        attach_files=True,  # the board picture after every move
        read_message_history=True,  # after a restart: what already reached the channel
        create_public_threads=True,  # a thread per game, if the server asks for it
        send_messages_in_threads=True,  # ... and playing in it
    )


def invite_url(application_id: int) -> str:
    """The OAuth2 link that adds the bot (and its slash commands) to a server."""
    return discord.utils.oauth_url(application_id, permissions=bot_permissions(),
                                   scopes=("bot", "applications.commands"))
