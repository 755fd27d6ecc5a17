"""The world the fake Discord models: its servers, channels, threads, DMs, people and messages.

``World`` owns that state and nothing else: what Discord keeps, and where it listens
(``port``, ``http_base``, ``gateway_url``). The other parts act on it: the gateway
(``gateway.py``) announces its changes to the bot, the REST routes (``routes/``) and the
interaction desk (``interactions.py``) read and change it for the bot's requests, people
(``people.py``) read it and act. ``wait_for`` is the one waiter: every change wakes it.

``FakeDiscord`` (``server.py``) is a ``World``, so every part that changes a message calls
the ``create_message``/``edit_message`` of the object the test holds (a test's subclass,
such as ``tests/reliability/harness.RecordingDiscord``, sees every message).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from .errors import HttpError
from .guild import FakeGuild
from .installs import Reach
from .messages import EPHEMERAL, LOADING, FakeFile, FakeMessage
from .payloads import (
    ADMINISTRATOR,
    dm_channel_payload,
    guild_payload,
    member_payload,
    message_payload,
    now_iso,
    snowflake,
    text_channel_payload,
    thread_payload,
    user_payload,
)
from .validation import check_message_payload

T = TypeVar("T")

API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway-ws/"
#: seconds between two looks of ``wait_for`` when nothing in the fake changed
LOOK_EVERY = 0.05
ALL_PERMISSIONS = (1 << 53) - 1


class Member(Protocol):
    """A person as the world knows them (``people.Person`` is one): who, which language,
    which permissions (a test may change them; the world reads them when asked)."""

    id: int
    locale: str
    permissions: int


class World:
    """What the fake Discord keeps, and the waiter that wakes on each change."""

    def __init__(self, *, token: str, bot_name: str, shards: int, port: int) -> None:
        if shards < 1:
            raise ValueError("shards must be at least 1")
        self.token = token
        #: the shard count ``GET /gateway/bot`` recommends; ``add_guild(shard=k)`` uses it
        self.shards = shards
        self.application_id = snowflake()
        self.bot_user = user_payload(self.application_id, bot_name, bot=True)
        self.owner_user = user_payload(snowflake(), "Owner")
        self.guilds: dict[int, FakeGuild] = {}
        self.users: dict[int, dict[str, Any]] = {self.application_id: self.bot_user}
        self.people: dict[int, Member] = {}
        self.channels: dict[int, dict[str, Any]] = {}
        self.threads: dict[int, int] = {}  # thread -> the channel it was opened in
        self.nonces: dict[tuple[int, str], FakeMessage] = {}  # enforce_nonce memory
        self.nonce_repeats = 0  # retries answered with the message made the first time
        self.channel_guild: dict[int, int] = {}
        self.dm_channel_of: dict[int, int] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.channel_messages: dict[int, list[FakeMessage]] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        #: where the app is besides the servers that invited the bot (``installs.py``)
        self.reach = Reach()
        self.port = port  # 0: any free port; kept, so a restart comes back on the same one
        self._event = asyncio.Event()

    # ----------------------------------------------------------------- where it listens
    @property
    def http_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """What ``DISCORD_API_BASE`` (``discord.http.Route.BASE``) should be."""
        return self.http_base + API_PREFIX

    @property
    def gateway_url(self) -> str:
        """What ``DISCORD_GATEWAY_URL`` (``DiscordWebSocket.DEFAULT_GATEWAY``) should be."""
        return f"ws://127.0.0.1:{self.port}{GATEWAY_PATH}"

    # ----------------------------------------------------------------- servers and channels
    def add_guild(self, name: str = "Family", *, locale: str = "en-US",
                  channels: tuple[str, ...] = ("general",), shard: int | None = None
                  ) -> FakeGuild:
        """A server with the bot in it; ``shard``: its id is chosen so that shard owns it
        (``(guild_id >> 22) % shards == shard``), to put servers on the shards a test wants."""
        guild_id = snowflake()
        if shard is not None:
            if not 0 <= shard < self.shards:
                raise ValueError(f"shard {shard} is not one of 0..{self.shards - 1}")
            # move the id's timestamp a few ms ahead (the low 22 bits keep it unique)
            stamp = guild_id >> 22
            stamp += (shard - stamp) % self.shards
            guild_id = (stamp << 22) | (guild_id & 0x3FFFFF)
        guild = FakeGuild(guild_id, name, locale, int(self.owner_user["id"]))
        guild.member_ids.append(self.application_id)
        for position, channel_name in enumerate(channels):
            channel_id = snowflake()
            self.channels[channel_id] = text_channel_payload(channel_id, guild.id, channel_name,
                                                             position)
            self.channel_guild[channel_id] = guild.id
            self.channel_messages[channel_id] = []
            guild.channel_ids.append(channel_id)
        self.guilds[guild.id] = guild
        return guild

    def shard_of(self, guild_id: int, shard_count: int | None = None) -> int:
        """The shard that owns a server, by Discord's rule ``(guild_id >> 22) % shard_count``."""
        return (guild_id >> 22) % (shard_count or self.shards)

    def guild_payload(self, guild: FakeGuild) -> dict[str, Any]:
        members = [member_payload(self.users[uid]) for uid in guild.member_ids]
        return guild_payload(
            guild.id, guild.name, guild.owner_id, guild.locale, guild.everyone_permissions,
            [self.channels[c] for c in guild.channel_ids],
            [self.channels[t] for t in self.threads if self.channel_guild.get(t) == guild.id],
            members)

    def add_thread(self, parent_id: int, name: str, owner_id: int) -> int:
        """A public thread somebody (not the bot) opened in ``parent_id``; its id."""
        thread = self.open_thread(snowflake(), parent_id, name, owner_id, 1440)
        self.changed()
        return int(thread["id"])

    def open_thread(self, thread_id: int, parent_id: int, name: str, owner_id: int,
                    auto_archive_duration: int) -> dict[str, Any]:
        guild_id = self.channel_guild[parent_id]
        thread = thread_payload(thread_id, guild_id, parent_id, name, owner_id,
                                auto_archive_duration)
        self.channels[thread_id] = thread
        self.channel_guild[thread_id] = guild_id
        self.channel_messages[thread_id] = []
        self.threads[thread_id] = parent_id
        self.announce("THREAD_CREATE", {**thread, "newly_created": True}, guild_id)
        return thread

    def delete_thread(self, thread_id: int) -> dict[str, Any]:
        """Remove a thread and what was said in it; the thread as it was."""
        payload = self.channels.pop(thread_id)
        del self.threads[thread_id]
        self.channel_messages.pop(thread_id, None)
        guild_id = self.channel_guild.pop(thread_id)
        self.announce("THREAD_DELETE", {"id": str(thread_id), "guild_id": str(guild_id),
                                        "parent_id": payload.get("parent_id"),
                                        "type": payload.get("type")}, guild_id)
        self.changed()
        return payload

    def dm_channel(self, user_id: int) -> int:
        channel_id = self.dm_channel_of.get(user_id)
        if channel_id is None:
            channel_id = snowflake()
            self.channels[channel_id] = dm_channel_payload(channel_id, self.users[user_id])
            self.channel_messages[channel_id] = []
            self.dm_channel_of[user_id] = channel_id
        return channel_id

    def channel(self, channel_id: int) -> dict[str, Any]:
        """The channel (a server's, a thread or a DM); 404 Unknown Channel if there is none."""
        channel = self.channels.get(channel_id)
        if channel is None:
            raise HttpError(404, 10003, "Unknown Channel")
        return channel

    # ----------------------------------------------------------------- people
    def join(self, person: Member, name: str, guild: FakeGuild) -> None:
        """``person`` becomes a member of ``guild`` (the bot hears it if connected)."""
        self.users[person.id] = user_payload(person.id, name)
        self.people[person.id] = person
        guild.member_ids.append(person.id)
        self.announce("GUILD_MEMBER_ADD", {**member_payload(self.users[person.id]),
                                           "guild_id": str(guild.id)}, guild.id, live_only=True)

    def member_permissions(self, user_id: int, guild: FakeGuild) -> int:
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        person = self.people.get(user_id)
        perms = person.permissions if person else guild.everyone_permissions
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    # ----------------------------------------------------------------- messages
    def message(self, channel_id: int, message_id: int) -> FakeMessage:
        """A message still there in ``channel_id``; 404 Unknown Message otherwise."""
        message = self.messages.get(message_id)
        if message is None or message.deleted or message.channel_id != channel_id:
            raise HttpError(404, 10008, "Unknown Message")
        return message

    def create_message(self, channel_id: int, payload: dict[str, Any],
                       files: list[tuple[str, bytes, str | None]], *,
                       webhook: bool = False, visible_to: int | None = None, flags: int = 0,
                       interaction_id: int | None = None) -> FakeMessage:
        """Store a message the bot sent (``payload`` as sent, ``files`` as uploaded)."""
        problem = check_message_payload(payload, len(files))
        if problem:
            raise HttpError(400, 50035, f"Invalid Form Body: {problem}")
        self.channel(channel_id)
        fake_files = _attached_files(payload, files, [])
        message = FakeMessage(
            message_payload(snowflake(), channel_id, self.bot_user, payload,
                            [self._attachment_payload(f) for f in fake_files],
                            guild_id=self.channel_guild.get(channel_id),
                            webhook_id=self.application_id if webhook else None,
                            flags=flags | (int(payload.get("flags") or 0) & EPHEMERAL)),
            fake_files, visible_to=visible_to, interaction_id=interaction_id)
        message.data["mentions"] = self._mentions(message.content)
        return self._kept(message)

    def say(self, author_id: int, channel_id: int, content: str) -> FakeMessage:
        """A message a person (not the bot) writes in a channel or in their DM with the bot:
        kept as Discord keeps it (a read of the channel's history finds it) and told to the
        bot's session if its intents ask (``intents.py``)."""
        self.channel(channel_id)
        guild_id = self.channel_guild.get(channel_id)
        data = message_payload(snowflake(), channel_id, self.users[author_id],
                               {"content": content}, [], guild_id=guild_id)
        data["mentions"] = self._mentions(content)
        if guild_id is not None:  # (Discord adds the author's member, without its user)
            data["member"] = {k: v for k, v in member_payload(self.users[author_id]).items()
                              if k != "user"}
        return self._kept(FakeMessage(data))

    def _kept(self, message: FakeMessage) -> FakeMessage:
        self.messages[message.id] = message
        self.channel_messages[message.channel_id].append(message)
        self._told("MESSAGE_CREATE", message)
        self.changed()
        return message

    def edit_message(self, message: FakeMessage, payload: dict[str, Any],
                     files: list[tuple[str, bytes, str | None]]) -> FakeMessage:
        problem = check_message_payload(payload, len(files) + len(message.files))
        if problem:
            raise HttpError(400, 50035, f"Invalid Form Body: {problem}")
        data = message.data
        for key in ("content", "embeds", "components"):
            if key in payload:
                data[key] = payload[key] if payload[key] is not None else (
                    "" if key == "content" else [])
        if "attachments" in payload or files:
            message.files = _attached_files(payload, files, message.files)
            data["attachments"] = [self._attachment_payload(f) for f in message.files]
        data["flags"] = (int(data.get("flags") or 0) & ~LOADING)
        data["edited_timestamp"] = now_iso()
        data["mentions"] = self._mentions(message.content)
        message.edits += 1
        self._told("MESSAGE_UPDATE", message)
        self.changed()
        return message

    def delete_message(self, message: FakeMessage) -> None:
        """The message goes (Discord keeps nothing of it) and the bot is told if it asks."""
        message.deleted = True
        data = {"id": str(message.id), "channel_id": str(message.channel_id)}
        guild_id = self.channel_guild.get(message.channel_id)
        if guild_id is not None and message.visible_to is None:
            data["guild_id"] = str(guild_id)
        self.announce("MESSAGE_DELETE", data, guild_id)
        self.changed()

    def _told(self, event: str, message: FakeMessage) -> None:
        """Discord tells a session of every message in its servers and DMs, the bot's own
        too, if its intents ask; an ephemeral one as if in a DM (Discord's docs: "tied to
        the DIRECT_MESSAGES intent", without ``guild_id``). A copy: later edits change
        ``message.data`` in place, and the event is what it was when it happened."""
        data = dict(message.data)
        if message.visible_to is not None:
            data.pop("guild_id", None)
        self.announce(event, data, self.channel_guild.get(message.channel_id))

    def attachment(self, attachment_id: int) -> FakeFile | None:
        """An uploaded file by its id (what its URL serves), or None."""
        for message in self.messages.values():
            for f in message.files:
                if f.id == attachment_id:
                    return f
        return None

    def _mentions(self, content: str) -> list[dict[str, Any]]:
        ids = {int(x) for x in re.findall(r"<@!?(\d+)>", content)}
        return [self.users[i] for i in ids if i in self.users]

    def _attachment_payload(self, f: FakeFile) -> dict[str, Any]:
        url = f"{self.http_base}/attachments/{f.id}/{f.filename}"
        data: dict[str, Any] = {"id": str(f.id), "filename": f.filename, "size": len(f.data),
                                "url": url, "proxy_url": url,
                                "content_type": f.content_type or "application/octet-stream"}
        if f.description is not None:
            data["description"] = f.description
        return data

    # ----------------------------------------------------------------- reading
    def visible_messages(self, channel_id: int, viewer: int | None = None) -> list[FakeMessage]:
        """Messages in a channel, oldest first, as ``viewer`` sees them (None: the public)."""
        return [m for m in self.channel_messages.get(channel_id, [])
                if not m.deleted and (m.visible_to is None or m.visible_to == viewer)]

    def public_texts(self) -> list[str]:
        """Every text a guild channel shows to everyone: what a leak check reads."""
        out = []
        for channel_id in self.channel_guild:
            out += [m.text for m in self.visible_messages(channel_id)]
        return out

    # ----------------------------------------------------------------- changes
    def announce(self, event: str, data: dict[str, Any], guild_id: int | None, *,
                 live_only: bool = False) -> None:
        """Tell the bot about a change in ``guild_id`` (None: in a DM), if a gateway session
        of it owns that server (a DM: shard 0; ``live_only``: only if that session is
        connected now) and its intents ask for the event. A world without a gateway tells
        no one; ``FakeDiscord`` tells its gateway."""

    def recently(self) -> str:
        """What the fake saw last, one line each, for a wait that timed out to show (a
        flake then says what the bot did instead: ``FakeDiscord`` lists its requests)."""
        return ""

    def changed(self) -> None:
        """Something changed: wake every ``wait_for``."""
        event, self._event = self._event, asyncio.Event()
        event.set()

    async def wait_for(self, predicate: Callable[[], T | None], timeout: float = 5.0,
                       what: str = "a condition") -> T:
        """Wait until ``predicate()`` is truthy and return it. It is checked after every
        change the fake sees, and every ``LOOK_EVERY`` seconds besides: a predicate may
        read what the bot holds (its manager, its database), which can come true after the
        last change the fake saw (two tests waited out their whole timeout that way)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                seen = self.recently()
                raise TimeoutError(
                    f"fake Discord: timed out after {timeout} s waiting for {what}"
                    + (f"; the bot's last requests, newest last:\n{seen}" if seen else ""))
            event = self._event
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(remaining, LOOK_EVERY))


def _attached_files(payload: dict[str, Any], files: list[tuple[str, bytes, str | None]],
                    existing: list[FakeFile]) -> list[FakeFile]:
    """The files a message ends up with: kept old ones (by id) and new uploads (by index)."""
    by_index = {}
    for index, (name, data, content_type) in enumerate(files):
        by_index[index] = FakeFile(snowflake(), _filename(name), data, None, content_type)
    entries = payload.get("attachments")
    if entries is None:
        return [*existing, *by_index.values()]
    kept_ids = {f.id: f for f in existing}
    out = []
    for entry in entries:
        ident = int(entry["id"])
        if ident in kept_ids:
            out.append(kept_ids[ident])
        elif ident in by_index:
            f = by_index[ident]
            f.filename = entry.get("filename") or f.filename
            f.description = entry.get("description")
            out.append(f)
    return out


def _filename(name: str) -> str:
    return name.rsplit("/", 1)[-1]
