"""Places the bot user is not in, where a person who installed the app to their account
(``Person.install_app``) can still use it: group DMs (channel type 3, with their
``recipients``), DMs between two people (type 1, not the bot's), and servers that never
invited the bot (a member installed the app; no GUILD_CREATE, no events).

Each channel made here is in ``World.reach.outside``: the bot's token there answers 403
50001 Missing Access (``routes/channels.py``), the gateway tells the bot nothing of it
(``FakeDiscord.announce``), and an interaction from it has context 2 (a private channel)
or, in such a server, context 0 with only the user's install authorizing it
(``installs.py``). Interaction answers and follow-ups do land there, as on Discord.
"""

from __future__ import annotations

from typing import Any

from .guild import FakeGuild
from .payloads import snowflake, text_channel_payload
from .world import Member, World


class PrivateChannels:
    """Makes the places of a user-installed app in a ``World`` (``FakeDiscord.private``)."""

    def __init__(self, world: World) -> None:
        self.world = world

    def group_dm(self, owner: Member, *others: Member, name: str | None = None) -> int:
        """A group DM ``owner`` opened with ``others`` (the bot not among them); its id."""
        world = self.world
        members = [owner, *others]
        if len({m.id for m in members}) != len(members) or not 2 <= len(members) <= 10:
            raise ValueError("a group DM has 2 to 10 different people")
        channel_id = snowflake()
        return self._open({
            "id": str(channel_id), "type": 3, "name": name, "icon": None,
            "owner_id": str(owner.id), "last_message_id": None, "flags": 0,
            "recipients": [world.users[m.id] for m in members]})

    def dm_between(self, one: Member, other: Member) -> int:
        """The DM between two people (not the bot's DM with either); its id."""
        world = self.world
        for channel_id in world.reach.outside:
            channel = world.channels.get(channel_id) or {}
            if channel.get("type") == 1 and {int(u["id"]) for u in channel["recipients"]} \
                    == {one.id, other.id}:
                return channel_id
        channel_id = snowflake()
        return self._open({
            "id": str(channel_id), "type": 1, "last_message_id": None, "flags": 0,
            "recipients": [world.users[one.id], world.users[other.id]]})

    def _open(self, channel: dict[str, Any]) -> int:
        world = self.world
        channel_id = int(channel["id"])
        world.channels[channel_id] = channel
        world.channel_messages[channel_id] = []
        world.reach.outside.add(channel_id)
        world.changed()
        return channel_id

    def foreign_guild(self, name: str = "Elsewhere", *, locale: str = "en-US",
                      channels: tuple[str, ...] = ("general",)) -> FakeGuild:
        """A server that never invited the bot; people join it with ``add_person(name,
        guild)`` (the bot hears nothing of them)."""
        world = self.world
        guild = FakeGuild(snowflake(), name, locale, int(world.owner_user["id"]))
        for position, channel_name in enumerate(channels):
            channel_id = snowflake()
            world.channels[channel_id] = text_channel_payload(channel_id, guild.id,
                                                              channel_name, position)
            world.channel_guild[channel_id] = guild.id
            world.channel_messages[channel_id] = []
            world.reach.outside.add(channel_id)
            guild.channel_ids.append(channel_id)
        world.reach.foreign_guilds[guild.id] = guild
        world.changed()
        return guild
