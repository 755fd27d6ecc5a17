"""The interaction desk: where a person's action becomes INTERACTION_CREATE, and where the
bot's answers to it come back (the callback, follow-ups, edits of the original, modals).

Discord gives the bot ``interaction_deadline`` seconds (3) to answer; a late callback is
404 Unknown interaction, a second one 400 (40060). The token lasts 15 minutes: after that
its follow-ups and its messages are 404 10015 Unknown Webhook. Ages are read on the
desk's ``clock`` (``clock.py``), which a test moves. Where only the person's own install
of the app authorizes an interaction (``installs.py``), 5 follow-ups at most (40094).
Each callback type is one method in ``InteractionDesk._callbacks``: a new type (say 12,
LAUNCH_ACTIVITY) is one more entry.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Callable
from typing import Any

from aiohttp import web

from .clock import TOKEN_LIFETIME, FakeClock
from .errors import HttpError
from .gateway import Gateway
from .installs import (
    BOT_DM,
    PRIVATE_PERMISSIONS,
    authorizing_owners,
    only_user_installed,
)
from .interaction import Interaction
from .messages import EPHEMERAL, LOADING, FakeMessage
from .modals import FakeModal
from .payloads import MEMBER_PERMISSIONS, member_payload, snowflake
from .rest import RequestBody, Router
from .validation import check_autocomplete_choices, check_modal
from .world import ALL_PERMISSIONS, Member, World

Files = list[tuple[str, bytes, str | None]]
#: One callback type's effect: (the interaction, the callback's data, its files, who may
#: follow-ups Discord allows an interaction only a user's install authorized
MAX_USER_FOLLOWUPS = 5
#: see the answer (None: everyone)); raises HttpError where Discord refuses. It may return
#: what the answer's ``resource`` adds (LAUNCH_ACTIVITY's ``activity_instance``).
Callback = Callable[[Interaction, dict[str, Any], Files, int | None], dict[str, Any] | None]


class InteractionDesk:
    """Every interaction people started, the modals the bot opened, and the routes the bot
    answers them on (``/interactions/...`` and the interaction token's ``/webhooks/...``)."""

    def __init__(self, world: World, gateway: Gateway, *, deadline: float = 3.0,
                 clock: FakeClock | None = None) -> None:
        self.world = world
        self.gateway = gateway
        self.deadline = deadline
        self.clock = clock or FakeClock()
        #: seconds from a person's action to its INTERACTION_CREATE at the bot (a gateway
        #: or a bot lagging): Discord's 3 s count from the action, not from the arrival
        self.lag = 0.0
        self.started: dict[int, Interaction] = {}
        self.modals: list[FakeModal] = []  # every modal the bot opened, oldest first
        self._callbacks: dict[int, Callback] = {
            4: self._message, 5: self._deferred_message, 6: self._deferred_update,
            7: self._update, 8: self._autocomplete, 9: self._modal}

    def answers(self, kind: int, callback: Callback) -> None:
        """Take callback type ``kind`` too (another part's: 12, LAUNCH_ACTIVITY, is the
        Activity routes')."""
        self._callbacks[kind] = callback

    def register(self, router: Router) -> None:
        r = router.add
        app = r"(?P<app>\d+)"
        token = r"(?P<token>[^/]+)"
        msg = r"(?P<message>@original|\d+)"
        r("POST", rf"/interactions/(?P<interaction>\d+)/{token}/callback", self._callback,
          auth=None)
        r("POST", rf"/webhooks/{app}/{token}", self._followup, auth=None)
        r("GET", rf"/webhooks/{app}/{token}/messages/{msg}", self._webhook_get, auth=None)
        r("PATCH", rf"/webhooks/{app}/{token}/messages/{msg}", self._webhook_edit, auth=None)
        r("DELETE", rf"/webhooks/{app}/{token}/messages/{msg}", self._webhook_delete,
          auth=None)

    # ----------------------------------------------------------------- starting
    def start(self, person: Member, kind: int, data: dict[str, Any], channel_id: int,
              message: FakeMessage | None = None) -> Interaction:
        """Send INTERACTION_CREATE as Discord would when ``person`` acts in ``channel_id``."""
        world = self.world
        interaction_id = snowflake()
        token = "itoken-" + secrets.token_urlsafe(24)
        channel = world.channel(channel_id)
        guild_id = world.channel_guild.get(channel_id)
        context = world.reach.context_of(channel_id, guild_id)
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(world.application_id),
            "type": kind,
            "data": data,
            "token": token,
            "version": 1,
            "locale": person.locale,
            "attachment_size_limit": 10 * 1024 * 1024,
            "entitlements": [],
            "channel": channel,
            "channel_id": str(channel_id),
        }
        if guild_id is not None:
            guild = world.guilds.get(guild_id) or world.reach.foreign_guilds[guild_id]
            perms = world.member_permissions(person.id, guild)
            payload.update({
                "guild_id": str(guild_id),
                "guild_locale": guild.locale,
                "guild": {"id": str(guild_id), "locale": guild.locale, "features": []},
                "member": member_payload(world.users[person.id], permissions=perms),
                "app_permissions": str(ALL_PERMISSIONS if guild_id in world.guilds
                                       else PRIVATE_PERMISSIONS),
            })
        else:
            payload.update({
                "user": world.users[person.id],
                "app_permissions": str(MEMBER_PERMISSIONS if context == BOT_DM
                                       else PRIVATE_PERMISSIONS),
            })
        payload["context"] = context
        payload["authorizing_integration_owners"] = self._owners(
            person, kind, data, context, guild_id, message)
        if message is not None:
            payload["message"] = message.data
        interaction = Interaction(world, interaction_id, token, kind, person.id, channel_id,
                                  guild_id, payload, self.clock.now(), message=message)
        self.started[interaction_id] = interaction
        if self.lag > 0:
            asyncio.get_running_loop().call_later(
                self.lag, self.gateway.dispatch, "INTERACTION_CREATE", payload)
        else:
            self.gateway.dispatch("INTERACTION_CREATE", payload)
        return interaction

    def _owners(self, person: Member, kind: int, data: dict[str, Any], context: int,
                guild_id: int | None, message: FakeMessage | None) -> dict[str, str]:
        """Who authorized the interaction (``installs.authorizing_owners``): for a command,
        by its ``integration_types``; a modal's submit inherits the owners of the
        interaction that opened it, a click those of the one that made the clicked message."""
        reach = self.world.reach
        opened = self.open_modal(person.id) if kind == 5 else None
        origin = (opened.interaction if opened is not None
                  else self.started.get(message.interaction_id)
                  if message is not None and message.interaction_id is not None else None)
        if kind in (3, 5) and origin is not None:
            return dict(origin.payload["authorizing_integration_owners"])
        command = None
        if kind in (2, 4):
            command = next((c for scope in self.world.commands.values() for c in scope
                            if c.get("id") == data.get("id")), None)
        installer = person.id if person.id in reach.user_installs else None
        return authorizing_owners(context=context, guild_id=guild_id,
                                  guild_installed=reach.guild_installed(guild_id),
                                  installer=installer, command=command)

    def open_modal(self, user_id: int) -> FakeModal | None:
        """The modal on ``user_id``'s screen (the newest still open), or None."""
        for modal in reversed(self.modals):
            if modal.user_id == user_id and not modal.closed:
                return modal
        return None

    def by_token(self, token: str) -> Interaction:
        """The interaction whose token this is (the newest); 404 Unknown Webhook if none,
        or if its 15 minutes are over."""
        for interaction in reversed(self.started.values()):
            if interaction.token == token:
                if self.clock.now() - interaction.sent_at > TOKEN_LIFETIME:
                    break
                return interaction
        raise HttpError(404, 10015, "Unknown Webhook")

    # ----------------------------------------------------------------- the callback
    async def _callback(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        interaction = self.started.get(int(m["interaction"]))
        if interaction is None or interaction.token != m["token"]:
            raise HttpError(404, 10062, "Unknown interaction")
        if self.clock.now() - interaction.sent_at > self.deadline:
            raise HttpError(404, 10062, "Unknown interaction")
        if interaction.acknowledged:
            raise HttpError(400, 40060, "Interaction has already been acknowledged.")
        kind = int(body.json["type"])
        data = body.json.get("data") or {}
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        visible_to = interaction.user_id if ephemeral else None
        resource: dict[str, Any] = {"type": kind}
        effect = self._callbacks.get(kind)
        if effect is None:
            raise HttpError(400, 50035, f"Invalid Form Body: callback type {kind}")
        added = effect(interaction, data, body.files, visible_to) or {}
        resource.update(added)
        interaction.callback_type = kind
        interaction.acked_at = self.clock.now()
        if interaction.original is not None and kind in (4, 5, 7):
            resource["message"] = interaction.original.data
        self.world.changed()
        return {
            "interaction": {
                "id": str(interaction.id), "type": interaction.type,
                "response_message_id": (str(interaction.original.id)
                                        if interaction.original else None),
                "response_message_loading": kind == 5,
                "response_message_ephemeral": ephemeral,
                **({"activity_instance_id": added["activity_instance"]["id"]}
                   if "activity_instance" in added else {}),
            },
            "resource": resource,
        }

    def _message(self, interaction: Interaction, data: dict[str, Any], files: Files,
                 visible_to: int | None) -> None:
        """4 CHANNEL_MESSAGE_WITH_SOURCE: the answer is a new message."""
        interaction.original = self.world.create_message(
            interaction.channel_id, data, files, webhook=True, visible_to=visible_to,
            interaction_id=interaction.id)

    def _deferred_message(self, interaction: Interaction, data: dict[str, Any], files: Files,
                          visible_to: int | None) -> None:
        """5 DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: "Bot is thinking...", filled in later."""
        interaction.original = self.world.create_message(
            interaction.channel_id, {"flags": data.get("flags")}, [], webhook=True,
            visible_to=visible_to, flags=LOADING, interaction_id=interaction.id)

    def _deferred_update(self, interaction: Interaction, data: dict[str, Any], files: Files,
                         visible_to: int | None) -> None:
        """6 DEFERRED_UPDATE_MESSAGE: the clicked message, edited later (or not at all)."""
        if interaction.message is None:
            raise HttpError(400, 50035, "Invalid Form Body: not a component interaction")
        interaction.original = interaction.message

    def _update(self, interaction: Interaction, data: dict[str, Any], files: Files,
                visible_to: int | None) -> None:
        """7 UPDATE_MESSAGE: the clicked message, edited now."""
        self._deferred_update(interaction, data, files, visible_to)
        assert interaction.message is not None
        self.world.edit_message(interaction.message, data, files)

    def _autocomplete(self, interaction: Interaction, data: dict[str, Any], files: Files,
                      visible_to: int | None) -> None:
        """8 APPLICATION_COMMAND_AUTOCOMPLETE_RESULT: the choices offered."""
        problem = check_autocomplete_choices(data.get("choices"))
        if problem:
            raise HttpError(400, 50035, f"Invalid Form Body: {problem}")
        interaction.choices = list(data.get("choices") or [])

    def _modal(self, interaction: Interaction, data: dict[str, Any], files: Files,
               visible_to: int | None) -> None:
        """9 MODAL: a modal on the person's screen, replacing any they had open."""
        if interaction.type not in (2, 3):
            # Discord: a modal answers a command or a component, never a modal submit
            raise HttpError(400, 50035, "Invalid Form Body: a modal cannot answer "
                                        f"interaction type {interaction.type}")
        problem = check_modal(data)
        if problem:
            raise HttpError(400, 50035, f"Invalid Form Body: {problem}")
        interaction.modal = data
        for earlier in self.modals:  # the app shows one modal at a time
            if earlier.user_id == interaction.user_id:
                earlier.closed = True
        self.modals.append(FakeModal(interaction, data))

    # ----------------------------------------------------------------- the token's webhook
    async def _followup(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        interaction = self.by_token(m["token"])
        if not interaction.acknowledged:
            raise HttpError(404, 10015, "Unknown Webhook")
        if (only_user_installed(interaction.payload["authorizing_integration_owners"])
                and len(interaction.followups) >= MAX_USER_FOLLOWUPS):
            raise HttpError(400, 40094, "This interaction has hit the maximum number of "
                                        "follow up messages")
        payload = body.json or {}
        ephemeral = bool(int(payload.get("flags") or 0) & EPHEMERAL)
        message = self.world.create_message(
            interaction.channel_id, payload, body.files, webhook=True,
            visible_to=interaction.user_id if ephemeral else None, interaction_id=interaction.id)
        interaction.followups.append(message)
        return message.data

    def _webhook_message(self, m: re.Match[str]) -> FakeMessage:
        interaction = self.by_token(m["token"])
        if m["message"] == "@original":
            if interaction.original is None or interaction.original.deleted:
                raise HttpError(404, 10008, "Unknown Message")
            return interaction.original
        return self.world.message(interaction.channel_id, int(m["message"]))

    async def _webhook_get(self, request: web.Request, m: re.Match[str], body: RequestBody
                           ) -> Any:
        return self._webhook_message(m).data

    async def _webhook_edit(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        message = self._webhook_message(m)
        edited = self.world.edit_message(message, body.json or {}, body.files).data
        if m["message"] == "@original":
            self.by_token(m["token"]).edited = True
        return edited

    async def _webhook_delete(self, request: web.Request, m: re.Match[str], body: RequestBody
                              ) -> Any:
        self.world.delete_message(self._webhook_message(m))
        return None
