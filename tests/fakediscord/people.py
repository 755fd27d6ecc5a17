"""People who use the bot through the fake Discord: slash commands, clicks, reading, and the
talk around it (messages, typing, reactions: ``chatter.py`` keeps a server busy with it)."""

from __future__ import annotations

import time
from typing import Any

from .guild import FakeGuild
from .installs import commands_visible
from .interaction import Interaction
from .interactions import InteractionDesk
from .messages import FakeFile, FakeMessage
from .modals import FakeModal, ModalRefused
from .payloads import member_payload
from .world import World


class ClientRefused(ValueError):
    """The Discord app itself would not send this (unknown command, bad option, no button)."""


_OPTION_TYPES = {3: "string", 4: "integer", 5: "boolean", 6: "user", 10: "number"}


class Person:
    """A member of a server who types slash commands and clicks buttons.

    Every action returns the ``Interaction``; ``await interaction.reply()`` is what the
    person reads back. Actions wait (bounded) for the bot to acknowledge.
    """

    def __init__(self, server: World, desk: InteractionDesk, user_id: int, name: str,
                 guild: FakeGuild, *, locale: str, permissions: int) -> None:
        self.server = server  # the fake Discord (``FakeDiscord``) this person is on
        self._desk = desk  # where their actions become interactions
        self.id = user_id
        self.name = name
        self.guild = guild
        self.locale = locale
        self.permissions = permissions
        # ephemeral messages the app no longer shows this person (it reloaded since)
        self._forgotten: set[int] = set()

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __repr__(self) -> str:
        return f"<Person {self.name} {self.id}>"

    # ----------------------------------------------------------------- acting
    async def slash(self, command: str, *, channel: int | None = None, timeout: float = 5.0,
                    **options: Any) -> Interaction:
        """Run ``/command`` (e.g. ``"sequence new"``) with options, as the Discord app would."""
        channel_id = channel or self.guild.channel_id
        data = self.command_data(command, channel_id, options, focused=None)
        interaction = self._desk.start(self, 2, data, channel_id)
        return await interaction.wait_ack(timeout)

    async def autocomplete(self, command: str, option: str, current: str = "", *,
                           channel: int | None = None, timeout: float = 5.0,
                           **options: Any) -> list[dict[str, Any]]:
        """Type ``current`` into ``option`` and return the choices the bot offers."""
        channel_id = channel or self.guild.channel_id
        options = {**options, option: current}
        data = self.command_data(command, channel_id, options, focused=option)
        interaction = self._desk.start(self, 4, data, channel_id)
        await interaction.wait_ack(timeout)
        return interaction.choices or []

    async def click(self, message: FakeMessage, custom_id: str | None = None, *,
                    label: str | None = None, timeout: float = 5.0) -> Interaction:
        """Click a button on ``message`` (by custom_id or by label)."""
        if custom_id is None:
            if label is None:
                raise ClientRefused("click what? give custom_id or label")
            custom_id = message.button(label)["custom_id"]
        button = self._component(message, custom_id, (2,))
        if button.get("disabled"):
            raise ClientRefused(f"button {custom_id!r} is disabled")
        data = {"custom_id": custom_id, "component_type": 2}
        interaction = self._desk.start(self, 3, data, message.channel_id, message)
        return await interaction.wait_ack(timeout)

    def install_app(self) -> None:
        """Add the app to their account (USER_INSTALL): its user commands follow them into
        group DMs, DMs with friends, servers that never invited the bot."""
        self.server.reach.user_installs.add(self.id)

    def uninstall_app(self) -> None:
        self.server.reach.user_installs.discard(self.id)

    # ----------------------------------------------------------------- talking
    # (what members do all day besides playing: the bot hears of it only if it asks)
    def say(self, text: str, *, channel: int | None = None) -> FakeMessage:
        """Write ``text`` in ``channel`` (their server's first by default, or their DM with
        the bot: ``server.dm_channel(person.id)``)."""
        return self.server.say(self.id, channel or self.guild.channel_id, text)

    def type_in(self, channel: int | None = None) -> None:
        """Start typing in ``channel``: Discord's TYPING_START."""
        channel_id = channel or self.guild.channel_id
        data = {"channel_id": str(channel_id), "user_id": str(self.id),
                "timestamp": int(time.time())}
        self.server.announce("TYPING_START", self._in_place(data, channel_id),
                             self.server.channel_guild.get(channel_id))

    def react(self, message: FakeMessage, emoji: str = "👍") -> None:
        """Add a reaction to ``message``: Discord's MESSAGE_REACTION_ADD."""
        data = {"user_id": str(self.id), "channel_id": str(message.channel_id),
                "message_id": str(message.id), "emoji": {"id": None, "name": emoji},
                "message_author_id": str(message.data["author"]["id"]), "burst": False,
                "burst_colors": [], "type": 0}
        self.server.announce("MESSAGE_REACTION_ADD", self._in_place(data, message.channel_id),
                             self.server.channel_guild.get(message.channel_id))

    def _in_place(self, data: dict[str, Any], channel_id: int) -> dict[str, Any]:
        """An event's ``guild_id`` and ``member`` when it happened in a server."""
        guild_id = self.server.channel_guild.get(channel_id)
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
            data["member"] = member_payload(self.server.users[self.id])
        return data

    async def select(self, message: FakeMessage, custom_id: str, values: list[str], *,
                     timeout: float = 5.0) -> Interaction:
        """Choose ``values`` in the select menu ``custom_id`` on ``message``."""
        menu = self._component(message, custom_id, (3,))
        allowed = {o["value"] for o in menu.get("options") or []}
        if not set(values) <= allowed:
            raise ClientRefused(f"{values} not among the options of {custom_id!r}")
        lo, hi = menu.get("min_values", 1), menu.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise ClientRefused(f"choose {lo} to {hi} values, not {len(values)}")
        data = {"custom_id": custom_id, "component_type": 3, "values": values}
        interaction = self._desk.start(self, 3, data, message.channel_id, message)
        return await interaction.wait_ack(timeout)

    async def opened_modal(self, timeout: float = 5.0) -> FakeModal:
        """The modal the bot opened for this person (waits for it, bounded)."""
        return await self.server.wait_for(lambda: self._desk.open_modal(self.id), timeout,
                                          f"a modal for {self.name}")

    async def submit_modal(self, modal: FakeModal, values: dict[str, str] | None = None, *,
                           timeout: float = 5.0) -> Interaction:
        """Fill in ``values`` (by custom_id or label) and press Submit, as the app would.

        Sends MODAL_SUBMIT from where the modal was opened (with the clicked message when a
        button opened it). Raises ``ClientRefused`` when the app would not send: the modal
        is not this person's or no longer open, a required field is empty, a value is
        outside the field's min_length..max_length.
        """
        if modal.user_id != self.id:
            raise ClientRefused(f"{modal!r} is on someone else's screen")
        if modal.closed:
            raise ClientRefused(f"{modal!r} is no longer open")
        try:
            data = modal.submission(values or {})
        except ModalRefused as exc:
            raise ClientRefused(str(exc)) from None
        opener = modal.interaction
        interaction = self._desk.start(self, 5, data, opener.channel_id,
                                                    opener.message)
        modal.closed = True
        modal.submit = interaction
        return await interaction.wait_ack(timeout)

    def dismiss_modal(self, modal: FakeModal) -> None:
        """Close the modal without submitting: Discord tells the bot nothing."""
        modal.closed = True

    def reload_app(self) -> None:
        """The Discord app reloads (the tablet slept, it was handed to someone else, the DM
        was opened again later): every ephemeral message it showed this person is gone,
        in DMs and channels alike. What stays is what Discord keeps: the messages in each
        channel and DM, as they are now. Reading and clicking respect it from now on."""
        self._forgotten |= {m.id for m in self.server.messages.values()
                            if m.visible_to == self.id}

    def remembers(self, message: FakeMessage) -> bool:
        """Whether the app still shows ``message`` to this person (an ephemeral one only
        until the app reloads)."""
        return message.id not in self._forgotten

    def _component(self, message: FakeMessage, custom_id: str, types: tuple[int, ...]
                   ) -> dict[str, Any]:
        if message.deleted:
            raise ClientRefused("the message was deleted")
        if not self.remembers(message):
            raise ClientRefused("the app forgot that ephemeral message when it reloaded")
        if message.visible_to not in (None, self.id):
            raise ClientRefused("that ephemeral message is someone else's")
        for c in message.components():
            if c.get("custom_id") == custom_id and c.get("type") in types:
                return c
        raise ClientRefused(f"no component {custom_id!r} on {message!r}")

    # ----------------------------------------------------------------- reading
    def dms(self) -> list[FakeMessage]:
        """The bot's direct messages to this person, oldest first (ephemeral answers in the
        DM only until the app reloads: ``reload_app``)."""
        channel_id = self.server.dm_channel_of.get(self.id)
        if not channel_id:
            return []
        return [m for m in self.server.visible_messages(channel_id, self.id)
                if self.remembers(m)]

    async def next_dm(self, after: int = 0, timeout: float = 5.0) -> FakeMessage:
        """Wait for a DM beyond the first ``after`` ones and return it."""
        return await self.server.wait_for(
            lambda: self.dms()[after] if len(self.dms()) > after else None, timeout,
            f"a DM to {self.name}")

    def channel_messages(self, channel: int | None = None) -> list[FakeMessage]:
        """What this person sees in a channel: public messages and their own ephemeral ones
        (those the app still shows: ``reload_app``)."""
        return [m for m in self.server.visible_messages(channel or self.guild.channel_id,
                                                         self.id) if self.remembers(m)]

    def ephemerals(self, channel: int | None = None) -> list[FakeMessage]:
        return [m for m in self.channel_messages(channel) if m.visible_to == self.id]

    @staticmethod
    def files(message: FakeMessage) -> list[FakeFile]:
        return list(message.files)

    # ----------------------------------------------------------------- command data
    def command_data(self, command: str, channel_id: int, options: dict[str, Any],
                     focused: str | None) -> dict[str, Any]:
        """The ``data`` of a slash command (or its autocomplete, ``focused``) as the
        Discord client sends it, from the commands the bot registered."""
        names = command.split()
        server = self.server
        guild_id = server.channel_guild.get(channel_id)
        registered = [*server.commands.get(guild_id, []), *server.commands.get(None, [])]
        root = next((c for c in registered if c["name"] == names[0] and c.get("type", 1) == 1),
                    None)
        if root is None:
            raise ClientRefused(f"/{names[0]} is not registered here")
        context = server.reach.context_of(channel_id, guild_id)
        if not any(c is root for c in commands_visible(
                server.commands, context=context, guild_id=guild_id,
                guild_installed=server.reach.guild_installed(guild_id),
                installed_by_user=self.id in server.reach.user_installs)):
            raise ClientRefused(f"/{names[0]} is not offered here (context {context}: its "
                                "integration_types and contexts, and who installed the app)")
        data: dict[str, Any] = {"id": root["id"], "name": root["name"], "type": 1}
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
        node: dict[str, Any] = root
        holder = data
        for name in names[1:]:
            sub = next((o for o in node.get("options") or []
                        if o["name"] == name and o["type"] in (1, 2)), None)
            if sub is None:
                raise ClientRefused(f"/{command}: no subcommand {name!r}")
            entry: dict[str, Any] = {"name": name, "type": sub["type"], "options": []}
            holder.setdefault("options", []).append(entry)
            node, holder = sub, entry
        resolved: dict[str, Any] = {}
        values = []
        params = {o["name"]: o for o in node.get("options") or [] if o["type"] not in (1, 2)}
        for name, value in options.items():
            spec = params.get(name)
            if spec is None:
                raise ClientRefused(f"/{command} has no option {name!r}")
            if name == focused:
                values.append({"name": name, "type": spec["type"], "value": str(value),
                               "focused": True})
                continue
            values.append({"name": name, "type": spec["type"],
                           "value": self._option_value(command, spec, value, resolved)})
        if focused is None:
            for name, spec in params.items():
                if spec.get("required") and name not in options:
                    raise ClientRefused(f"/{command}: option {name!r} is required")
        holder.setdefault("options", []).extend(values)
        if resolved:
            data["resolved"] = resolved
        return data

    def _option_value(self, command: str, spec: dict[str, Any], value: Any,
                      resolved: dict[str, Any]) -> Any:
        kind = spec["type"]
        name = spec["name"]
        if kind == 6:
            user_id = value.id if isinstance(value, Person) else int(value)
            user = self.server.users[user_id]
            resolved.setdefault("users", {})[str(user_id)] = user
            member = member_payload(user)
            member.pop("user")
            resolved.setdefault("members", {})[str(user_id)] = member
            return str(user_id)
        if kind not in _OPTION_TYPES:
            raise ClientRefused(f"option type {kind} is not supported by the fake")
        if kind == 3:
            value = str(value)
            if not spec.get("min_length", 0) <= len(value) <= spec.get("max_length", 6000):
                raise ClientRefused(f"/{command} {name}: length out of range")
        elif kind == 4:
            if isinstance(value, bool) or int(value) != value:
                raise ClientRefused(f"/{command} {name}: {value!r} is not an integer")
            value = int(value)
        elif kind == 10:
            value = float(value)
        elif kind == 5:
            value = bool(value)
        if kind in (4, 10):
            lo, hi = spec.get("min_value"), spec.get("max_value")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise ClientRefused(f"/{command} {name}: {value} outside {lo}..{hi}")
        choices = spec.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise ClientRefused(f"/{command} {name}: {value!r} is not one of the choices")
        return value
