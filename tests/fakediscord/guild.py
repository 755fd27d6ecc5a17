"""A server as the fake Discord keeps it (``World.guilds``: those that invited the bot;
``installs.Reach.foreign_guilds``: those where only members installed the app)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .payloads import MEMBER_PERMISSIONS


@dataclass
class FakeGuild:
    id: int
    name: str
    locale: str
    owner_id: int
    channel_ids: list[int] = field(default_factory=list)
    member_ids: list[int] = field(default_factory=list)
    everyone_permissions: int = MEMBER_PERMISSIONS

    @property
    def channel_id(self) -> int:
        """The first text channel, where games are played unless a test says otherwise."""
        return self.channel_ids[0]
