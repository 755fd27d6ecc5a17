"""Discord JSON shapes the fake server hands to discord.py.

Each builder returns the fields discord.py 2.7 reads without a default (found by reading its
``_from_data`` methods); anything optional that the bot does not use is left out.
"""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime
from typing import Any

DISCORD_EPOCH_MS = 1_420_070_400_000
_counter = itertools.count(1)

#: Permissions of an ordinary member: view, send, embed, attach, read history, use commands.
MEMBER_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31)
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADMINISTRATOR = 1 << 3


def snowflake() -> int:
    """A fresh, increasing Discord id whose timestamp is now (so ``created_at`` is sane)."""
    ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
    return (ms << 22) | (next(_counter) & 0x3FFFFF)


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def user_payload(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


def member_payload(user: dict[str, Any], *, permissions: int | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "user": user,
        "roles": [],
        "joined_at": now_iso(),
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "nick": None,
        "avatar": None,
        "premium_since": None,
        "communication_disabled_until": None,
    }
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def text_channel_payload(channel_id: int, guild_id: int, name: str, position: int = 0
                         ) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "guild_id": str(guild_id),
        "type": 0,
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "topic": None,
        "nsfw": False,
        "parent_id": None,
        "rate_limit_per_user": 0,
        "last_message_id": None,
        "flags": 0,
    }


def thread_payload(thread_id: int, guild_id: int, parent_id: int, name: str, owner_id: int,
                   auto_archive_duration: int = 1440) -> dict[str, Any]:
    """A public thread (type 11), as Discord answers its creation."""
    return {
        "id": str(thread_id),
        "guild_id": str(guild_id),
        "parent_id": str(parent_id),
        "type": 11,
        "name": name,
        "owner_id": str(owner_id),
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "message_count": 0,
        "member_count": 1,
        "flags": 0,
        "thread_metadata": {"archived": False, "auto_archive_duration": auto_archive_duration,
                            "archive_timestamp": now_iso(), "locked": False},
    }


def dm_channel_payload(channel_id: int, recipient: dict[str, Any]) -> dict[str, Any]:
    return {"id": str(channel_id), "type": 1, "recipients": [recipient],
            "last_message_id": None, "flags": 0}


def everyone_role_payload(guild_id: int, permissions: int) -> dict[str, Any]:
    return {
        "id": str(guild_id),
        "name": "@everyone",
        "permissions": str(permissions),
        "position": 0,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "flags": 0,
        "icon": None,
        "unicode_emoji": None,
    }


def guild_payload(guild_id: int, name: str, owner_id: int, locale: str, everyone_permissions: int,
                  channels: list[dict[str, Any]], threads: list[dict[str, Any]],
                  members: list[dict[str, Any]]) -> dict[str, Any]:
    """A server as GUILD_CREATE and ``GET /guilds/{id}`` give it, with the bot in it."""
    return {
        "id": str(guild_id),
        "name": name,
        "icon": None,
        "owner_id": str(owner_id),
        "preferred_locale": locale,
        "roles": [everyone_role_payload(guild_id, everyone_permissions)],
        "channels": channels,
        "threads": threads,
        "members": members,
        # must equal len(members), or with the members intent discord.py waits for a chunk
        "member_count": len(members),
        "emojis": [],
        "stickers": [],
        "features": [],
        "presences": [],
        "voice_states": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "large": False,
        "unavailable": False,
        "joined_at": now_iso(),
        "premium_tier": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "verification_level": 0,
        "explicit_content_filter": 0,
        "default_message_notifications": 0,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "description": None,
        "banner": None,
        "splash": None,
        "discovery_splash": None,
        "vanity_url_code": None,
        "premium_subscription_count": 0,
        "max_members": 500000,
        "application_id": None,
    }


def message_payload(
    message_id: int,
    channel_id: int,
    author: dict[str, Any],
    payload: dict[str, Any],
    attachments: list[dict[str, Any]],
    *,
    guild_id: int | None = None,
    webhook_id: int | None = None,
    flags: int = 0,
) -> dict[str, Any]:
    """A message as Discord returns it, built from what the bot sent (``payload``)."""
    data: dict[str, Any] = {
        "id": str(message_id),
        "channel_id": str(channel_id),
        "type": 0,
        "author": author,
        "content": payload.get("content") or "",
        "timestamp": now_iso(),
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": attachments,
        "embeds": list(payload.get("embeds") or []),
        "components": list(payload.get("components") or []),
        "pinned": False,
        "flags": flags,
    }
    if guild_id is not None:
        data["guild_id"] = str(guild_id)
    if webhook_id is not None:
        data["webhook_id"] = str(webhook_id)
    return data


def utc_now() -> datetime:
    return datetime.now(UTC)
