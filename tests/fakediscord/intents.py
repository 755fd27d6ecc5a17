"""Gateway intents as Discord applies them: which session is sent an event, and what of it.

Discord's "List of Intents" (discord-api-docs, developers/events/gateway.mdx): an event
tied to an intent goes only to a session whose IDENTIFY asked for that intent, and an event
not tied to any (READY, RESUMED, INTERACTION_CREATE, GUILD_MEMBERS_CHUNK, ...) goes to
every session. The message events have two intents, one for servers and one for DMs; an
ephemeral message counts as a DM (the docs: "tied to the DIRECT_MESSAGES intent", with no
``guild_id``). Without MESSAGE_CONTENT a server message's content, embeds, attachments,
components and poll arrive empty, except in the bot's own messages and those that mention
it.
"""

from __future__ import annotations

from typing import Any

GUILDS = 1 << 0
GUILD_MEMBERS = 1 << 1  # privileged
GUILD_MODERATION = 1 << 2
GUILD_EXPRESSIONS = 1 << 3
GUILD_INTEGRATIONS = 1 << 4
GUILD_WEBHOOKS = 1 << 5
GUILD_INVITES = 1 << 6
GUILD_VOICE_STATES = 1 << 7
GUILD_PRESENCES = 1 << 8  # privileged
GUILD_MESSAGES = 1 << 9
GUILD_MESSAGE_REACTIONS = 1 << 10
GUILD_MESSAGE_TYPING = 1 << 11
DIRECT_MESSAGES = 1 << 12
DIRECT_MESSAGE_REACTIONS = 1 << 13
DIRECT_MESSAGE_TYPING = 1 << 14
MESSAGE_CONTENT = 1 << 15  # privileged; no event of its own
GUILD_SCHEDULED_EVENTS = 1 << 16
AUTO_MODERATION_CONFIGURATION = 1 << 20
AUTO_MODERATION_EXECUTION = 1 << 21
GUILD_MESSAGE_POLLS = 1 << 24
DIRECT_MESSAGE_POLLS = 1 << 25

_GUILD_ONLY: dict[int, tuple[str, ...]] = {
    GUILDS: ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE", "GUILD_ROLE_CREATE",
             "GUILD_ROLE_UPDATE", "GUILD_ROLE_DELETE", "CHANNEL_CREATE", "CHANNEL_UPDATE",
             "CHANNEL_DELETE", "THREAD_CREATE", "THREAD_UPDATE", "THREAD_DELETE",
             "THREAD_LIST_SYNC", "THREAD_MEMBER_UPDATE", "THREAD_MEMBERS_UPDATE",
             "STAGE_INSTANCE_CREATE", "STAGE_INSTANCE_UPDATE", "STAGE_INSTANCE_DELETE",
             "VOICE_CHANNEL_STATUS_UPDATE", "VOICE_CHANNEL_START_TIME_UPDATE"),
    GUILD_MEMBERS: ("GUILD_MEMBER_ADD", "GUILD_MEMBER_UPDATE", "GUILD_MEMBER_REMOVE"),
    GUILD_MODERATION: ("GUILD_AUDIT_LOG_ENTRY_CREATE", "GUILD_BAN_ADD", "GUILD_BAN_REMOVE"),
    GUILD_EXPRESSIONS: ("GUILD_EMOJIS_UPDATE", "GUILD_STICKERS_UPDATE",
                        "GUILD_SOUNDBOARD_SOUND_CREATE", "GUILD_SOUNDBOARD_SOUND_UPDATE",
                        "GUILD_SOUNDBOARD_SOUND_DELETE", "GUILD_SOUNDBOARD_SOUNDS_UPDATE"),
    GUILD_INTEGRATIONS: ("GUILD_INTEGRATIONS_UPDATE", "INTEGRATION_CREATE",
                         "INTEGRATION_UPDATE", "INTEGRATION_DELETE"),
    GUILD_WEBHOOKS: ("WEBHOOKS_UPDATE",),
    GUILD_INVITES: ("INVITE_CREATE", "INVITE_DELETE"),
    GUILD_VOICE_STATES: ("VOICE_CHANNEL_EFFECT_SEND", "VOICE_STATE_UPDATE"),
    GUILD_PRESENCES: ("PRESENCE_UPDATE",),
    GUILD_SCHEDULED_EVENTS: ("GUILD_SCHEDULED_EVENT_CREATE", "GUILD_SCHEDULED_EVENT_UPDATE",
                             "GUILD_SCHEDULED_EVENT_DELETE", "GUILD_SCHEDULED_EVENT_USER_ADD",
                             "GUILD_SCHEDULED_EVENT_USER_REMOVE"),
    AUTO_MODERATION_CONFIGURATION: ("AUTO_MODERATION_RULE_CREATE",
                                    "AUTO_MODERATION_RULE_UPDATE",
                                    "AUTO_MODERATION_RULE_DELETE"),
    AUTO_MODERATION_EXECUTION: ("AUTO_MODERATION_ACTION_EXECUTION",),
}
#: event -> the one intent it needs, wherever it happens
ONE_INTENT: dict[str, int] = {event: bit for bit, events in _GUILD_ONLY.items()
                              for event in events}

_REACTIONS = ("MESSAGE_REACTION_ADD", "MESSAGE_REACTION_REMOVE",
              "MESSAGE_REACTION_REMOVE_ALL", "MESSAGE_REACTION_REMOVE_EMOJI")
#: event -> (the intent it needs in a server, the one in a DM)
BY_PLACE: dict[str, tuple[int, int]] = {
    **{e: (GUILD_MESSAGES, DIRECT_MESSAGES)
       for e in ("MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE")},
    "MESSAGE_DELETE_BULK": (GUILD_MESSAGES, 0),  # (a server's only: no DM twin)
    "CHANNEL_PINS_UPDATE": (GUILDS, DIRECT_MESSAGES),
    **{e: (GUILD_MESSAGE_REACTIONS, DIRECT_MESSAGE_REACTIONS) for e in _REACTIONS},
    "TYPING_START": (GUILD_MESSAGE_TYPING, DIRECT_MESSAGE_TYPING),
    **{e: (GUILD_MESSAGE_POLLS, DIRECT_MESSAGE_POLLS)
       for e in ("MESSAGE_POLL_VOTE_ADD", "MESSAGE_POLL_VOTE_REMOVE")},
}

def needed(event: str, data: dict[str, Any]) -> int:
    """The intent ``event`` needs (0: it goes to every session)."""
    place = BY_PLACE.get(event)
    if place is not None:
        in_guild, in_dm = place
        return in_guild if data.get("guild_id") is not None else in_dm
    return ONE_INTENT.get(event, 0)


def allows(intents: int, event: str, data: dict[str, Any], bot_id: int) -> bool:
    """Whether a session that identified with ``intents`` is sent ``event``."""
    if event == "GUILD_MEMBER_UPDATE" and _user_id(data) == bot_id:
        return True  # sent for the bot's own member whatever the intents
    bit = needed(event, data)
    return bit == 0 or bool(intents & bit)


def shaped(intents: int, event: str, data: dict[str, Any], bot_id: int) -> dict[str, Any]:
    """``data`` as that session sees it: a server message someone else wrote that does not
    mention the bot comes without its content unless the session asked for MESSAGE_CONTENT."""
    if (event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE") or intents & MESSAGE_CONTENT
            or data.get("guild_id") is None or _author_id(data) == bot_id
            or any(int(u["id"]) == bot_id for u in data.get("mentions") or [])):
        return data
    held_back = {**data, "content": "", "embeds": [], "attachments": [], "components": []}
    held_back.pop("poll", None)
    return held_back


def _author_id(data: dict[str, Any]) -> int | None:
    author = data.get("author")
    return int(author["id"]) if author else None


def _user_id(data: dict[str, Any]) -> int | None:
    user = data.get("user")
    return int(user["id"]) if user else None
