"""Discord's side of an Activity, faked: what a page inside Discord's iframe leans on.

- **OAuth2**: ``authorize(person)`` is what the Discord app's ``commands.authorize``
  gives the page (a one-use code for that person, as if they consented);
  ``POST /oauth2/token`` turns a code into an access token, for the application's client
  id and secret only; ``GET /users/@me`` with ``Bearer <token>`` is that person.
- **Activity instances**: ``open(person, channel)`` is a person opening the Activity in
  a channel (the App Launcher, or a ``LAUNCH_ACTIVITY`` answer): one instance per channel,
  people join it; ``GET /applications/{app}/activity-instances/{id}`` (the bot's token)
  says where it runs and who is in it, as Discord's does.
- **LAUNCH_ACTIVITY** (interaction callback type 12), with Discord's rules: the
  application must have Activities on; only a slash command or a component click can be
  answered so (not autocomplete, not a modal's submit); once, within the 3 s (the
  server's usual checks). The clicker then is in the channel's instance.
- **The entry point command** (application command type 4, ``PRIMARY_ENTRY_POINT``):
  turning Activities on makes Discord's default one ("Launch", handler 2:
  ``DISCORD_LAUNCH_ACTIVITY``); a global bulk overwrite that leaves it out is refused with
  Discord's 50240 (``application.py``'s rule), so a bot's command sync must carry it over.
"""

from __future__ import annotations

import itertools
import re
import secrets
import string
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from ..errors import HttpError
from ..interaction import Interaction
from ..interactions import InteractionDesk
from ..payloads import snowflake
from ..rest import RequestBody, Router
from ..world import Member, World

ENTRY_POINT = 4  # application command type PRIMARY_ENTRY_POINT
LAUNCH_ACTIVITY = 12  # interaction callback type
DISCORD_LAUNCH_ACTIVITY = 2  # entry point handler: Discord launches it, no interaction
_instance_numbers = itertools.count(1)
CODE_LETTERS = string.ascii_letters + string.digits


@dataclass
class Instance:
    """One running Activity: where it runs and who has it open."""

    id: str
    channel_id: int
    guild_id: int | None
    launch_id: int
    users: list[int] = field(default_factory=list)

    def payload(self, application_id: int) -> dict[str, Any]:
        kind = "gc" if self.guild_id is not None else "pc"
        location: dict[str, Any] = {"id": f"{kind}-{self.guild_id or 0}-{self.channel_id}",
                                    "kind": kind, "channel_id": str(self.channel_id)}
        if self.guild_id is not None:
            location["guild_id"] = str(self.guild_id)
        return {"application_id": str(application_id), "instance_id": self.id,
                "launch_id": str(self.launch_id), "location": location,
                "users": [str(u) for u in self.users]}


@dataclass
class Launch:
    """A ``LAUNCH_ACTIVITY`` answer the bot gave: who clicked, where, which instance."""

    user_id: int
    channel_id: int
    interaction_id: int
    instance: Instance


def default_entry_point(application_id: int) -> dict[str, Any]:
    """The entry point Discord makes when an application turns Activities on."""
    return {"id": str(snowflake()), "application_id": str(application_id),
            "version": str(snowflake()), "type": ENTRY_POINT, "name": "launch",
            "description": "", "handler": DISCORD_LAUNCH_ACTIVITY,
            "integration_types": [0, 1], "contexts": [0, 1, 2],
            "default_member_permissions": None, "nsfw": False}


class ActivityRoutes:
    """The fake's Activity side (``FakeDiscord.activities``): a route group, and the answer
    to callback 12 at the interaction desk."""

    def __init__(self, world: World, desk: InteractionDesk, *,
                 client_secret: str = "fake-client-secret", enabled: bool = True) -> None:
        self.server = world
        self.client_secret = client_secret
        self.enabled = enabled
        self.codes: dict[str, int] = {}  # one-use authorization codes -> the person
        self.tokens: dict[str, int] = {}  # access tokens -> the person
        self.instances: dict[str, Instance] = {}
        self.launches: list[Launch] = []
        if enabled:
            world.commands[None] = [default_entry_point(world.application_id)]
        desk.answers(LAUNCH_ACTIVITY, self.launch)

    # -- what people do ------------------------------------------------------------------

    def authorize(self, person: Member) -> str:
        """The code ``commands.authorize`` hands the page (the person said yes): 30 letters
        and digits, as Discord's look (``NhhvTDYsFcdgNLnnLijcl7Ku7bEEeee`` in its docs)."""
        code = "".join(secrets.choice(CODE_LETTERS) for _ in range(30))
        self.codes[code] = person.id
        return code

    def open(self, person: Member, channel_id: int) -> Instance:
        """``person`` opens the Activity in ``channel_id`` (joining the one running there)."""
        instance = next((i for i in self.instances.values() if i.channel_id == channel_id),
                        None)
        if instance is None:
            instance = Instance(f"i-{next(_instance_numbers)}-{secrets.token_hex(4)}",
                                channel_id, self.server.channel_guild.get(channel_id),
                                snowflake())
            self.instances[instance.id] = instance
        if person.id not in instance.users:
            instance.users.append(person.id)
        self.server.changed()
        return instance

    def leave(self, person: Member, instance: Instance) -> None:
        """``person`` closes the Activity."""
        if person.id in instance.users:
            instance.users.remove(person.id)

    # -- the routes ------------------------------------------------------------------------

    def register(self, router: Router) -> None:
        """``POST /oauth2/token`` (the application's id and secret in the form, no
        header), ``GET /users/@me`` with a ``Bearer`` token (beside the bot's own), and the
        bot's ``GET`` of an activity instance. Only for an application with an Activity:
        others have no such routes."""
        if not self.enabled:
            return
        router.accept("Bearer", lambda token: token in self.tokens)
        router.add("POST", r"/oauth2/token", self._token, auth=None)
        router.add("GET", r"/users/@me", self._me, auth="Bearer")
        router.add("GET", r"/applications/(?P<app>\d+)/activity-instances/(?P<instance>[^/]+)",
                   self._instance)

    async def _token(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        form = body.json if isinstance(body.json, dict) else {}
        if (str(form.get("client_id")) != str(self.server.application_id)
                or form.get("client_secret") != self.client_secret):
            raise HttpError(401, 0, "invalid_client")
        if form.get("grant_type") != "authorization_code":
            raise HttpError(400, 0, "unsupported_grant_type")
        user_id = self.codes.pop(str(form.get("code")), None)
        if user_id is None:
            raise HttpError(400, 0, "invalid_grant")
        token = "access-" + secrets.token_urlsafe(18)
        self.tokens[token] = user_id
        return {"access_token": token, "token_type": "Bearer", "expires_in": 604800,
                "refresh_token": "refresh-" + secrets.token_urlsafe(12),
                "scope": "identify"}

    async def _me(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        token = request.headers["Authorization"].removeprefix("Bearer ")
        user_id = self.tokens.get(token)
        if user_id is None:
            raise HttpError(401, 0, "401: Unauthorized")
        person = self.server.people.get(user_id)
        return {**self.server.users[user_id],
                "locale": person.locale if person is not None else "en-US"}

    async def _instance(self, request: web.Request, m: re.Match[str], body: RequestBody
                        ) -> Any:
        if int(m["app"]) != self.server.application_id:
            raise HttpError(403, 50001, "Missing Access")
        instance = self.instances.get(m["instance"])
        if instance is None or not instance.users:
            raise HttpError(404, 10068, "Unknown Activity Instance")
        return instance.payload(self.server.application_id)

    # -- the interaction desk's callback 12 --------------------------------------------------

    def launch(self, interaction: Interaction, data: dict[str, Any], files: object,
               visible_to: int | None) -> dict[str, Any]:
        """The bot answered ``interaction`` with LAUNCH_ACTIVITY: Discord's rules, then the
        clicker is in the channel's instance. Returns what the callback's resource adds."""
        if not self.enabled:
            raise HttpError(400, 50234, "This application does not have Activities enabled")
        if interaction.type not in (2, 3):
            raise HttpError(400, 50035, "Invalid Form Body: LAUNCH_ACTIVITY answers a "
                                        f"command or a component, not type {interaction.type}")
        person = self.server.people[interaction.user_id]
        instance = self.open(person, interaction.channel_id)
        self.launches.append(Launch(person.id, interaction.channel_id, interaction.id,
                                    instance))
        return {"activity_instance": {"id": instance.id}}

    def entry_point(self) -> dict[str, Any] | None:
        """The application's entry point command as Discord holds it now."""
        return next((c for c in self.server.commands.get(None, [])
                     if int(c.get("type") or 1) == ENTRY_POINT), None)

