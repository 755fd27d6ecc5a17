"""What the Activity asks Discord itself: who a player is, and where their Activity runs.

- ``exchange(code)``: the one-use code the page got from ``commands.authorize`` becomes an
  access token at ``POST /oauth2/token``, with the application's client id and secret
  (the secret stays here: the page never sees it).
- ``who(access_token)``: ``GET /users/@me`` with that token: the person, as Discord says.
- ``instance(instance_id)``: ``GET /applications/{app}/activity-instances/{id}`` with the
  bot's token: the channel the Activity runs in and who has it open. A page says which
  instance it is in; Discord says where that is and whether the person is in it, so a
  page cannot claim a channel it is not in.

The bot's own request (the instance) goes through the bot's global rate budget (the
``trace`` handed in: ``runtime/budget.py``'s); the OAuth2 calls are the player's own,
outside the bot's budget.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

import aiohttp

log = logging.getLogger(__name__)

TIMEOUT = aiohttp.ClientTimeout(total=10)
INSTANCE_SECONDS = 30.0  # how long an instance's answer is reused (a page reconnecting)
INSTANCE_TRIES = 3  # a person just opened it: Discord may list them a moment later
INSTANCE_WAIT = 0.5


class LoginRefused(Exception):
    """Discord did not vouch for this person (a bad or used code, a bad token), or for
    this place (no such instance, or the person is not in it). ``code`` names which."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code


class DiscordAway(Exception):
    """Discord did not answer (or answered 5xx): nothing is known, try again later."""


@dataclass(frozen=True)
class Person:
    """A Discord user as ``/users/@me`` describes them."""

    user_id: int
    name: str
    locale: str | None
    avatar: str | None


@dataclass(frozen=True)
class Place:
    """Where an Activity instance runs, and who has it open."""

    instance_id: str
    channel_id: int
    guild_id: int | None
    users: frozenset[int]


class DiscordLogin:
    """Discord's OAuth2 and activity-instance endpoints, over one aiohttp session each."""

    def __init__(self, api_base: str, bot_token: str, client_secret: str, *,
                 trace: aiohttp.TraceConfig | None = None) -> None:
        self.api_base = api_base.rstrip("/")
        self._bot_token = bot_token
        self._client_secret = client_secret
        self._trace = trace
        self.application_id: int | None = None  # known once the bot has logged in
        self._user: aiohttp.ClientSession | None = None
        self._bot: aiohttp.ClientSession | None = None
        self._places: dict[str, tuple[float, Place]] = {}

    def _sessions(self) -> tuple[aiohttp.ClientSession, aiohttp.ClientSession]:
        if self._user is None or self._bot is None:
            self._user = aiohttp.ClientSession(timeout=TIMEOUT)
            self._bot = aiohttp.ClientSession(
                timeout=TIMEOUT, trace_configs=[self._trace] if self._trace else None,
                headers={"Authorization": f"Bot {self._bot_token}"})
        return self._user, self._bot

    async def close(self) -> None:
        for session in (self._user, self._bot):
            if session is not None:
                await session.close()
        self._user = self._bot = None

    async def exchange(self, code: str) -> str:
        """The access token for an authorization code (``LoginRefused("bad_code")``)."""
        if self.application_id is None:
            raise DiscordAway("the bot has not logged in yet")
        user, _ = self._sessions()
        form = {"client_id": str(self.application_id), "client_secret": self._client_secret,
                "grant_type": "authorization_code", "code": code}
        data = await self._call(user.post(f"{self.api_base}/oauth2/token", data=form),
                                refused="bad_code")
        token = data.get("access_token")
        if not isinstance(token, str) or not token:
            raise LoginRefused("bad_code", "no access token")
        return token

    async def who(self, access_token: str) -> Person:
        """The person an access token belongs to (``LoginRefused("bad_token")``)."""
        user, _ = self._sessions()
        data = await self._call(user.get(f"{self.api_base}/users/@me", headers={
            "Authorization": f"Bearer {access_token}"}), refused="bad_token")
        try:
            name = data.get("global_name") or data["username"]
            return Person(int(data["id"]), str(name), data.get("locale"), data.get("avatar"))
        except (KeyError, TypeError, ValueError) as exc:
            raise LoginRefused("bad_token", "no user") from exc

    async def place(self, instance_id: str, user_id: int) -> Place:
        """Where ``instance_id`` runs, checked to have ``user_id`` in it (asked again a
        moment later if not yet: a person who just opened it may be listed late)."""
        for attempt in range(INSTANCE_TRIES):
            place = await self._instance(instance_id, fresh=attempt > 0)
            if user_id in place.users:
                return place
            await asyncio.sleep(INSTANCE_WAIT)
        raise LoginRefused("not_in_activity", f"user {user_id} is not in {instance_id}")

    async def _instance(self, instance_id: str, *, fresh: bool) -> Place:
        now = time.monotonic()
        cached = self._places.get(instance_id)
        if cached is not None and not fresh and now - cached[0] < INSTANCE_SECONDS:
            return cached[1]
        if self.application_id is None:
            raise DiscordAway("the bot has not logged in yet")
        _, bot = self._sessions()
        url = f"{self.api_base}/applications/{self.application_id}/activity-instances/" \
              f"{instance_id}"
        data = await self._call(bot.get(url), refused="no_activity")
        try:
            location = data["location"]
            guild = location.get("guild_id")
            place = Place(str(data["instance_id"]), int(location["channel_id"]),
                          int(guild) if guild else None,
                          frozenset(int(u) for u in data.get("users") or ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise LoginRefused("no_activity", "no location") from exc
        if len(self._places) > 1000:  # (a bounded memory of the instances in use)
            self._places = {k: v for k, v in self._places.items()
                            if now - v[0] < INSTANCE_SECONDS}
        self._places[instance_id] = (now, place)
        return place

    async def _call(self, request: Any, *, refused: str) -> dict[str, Any]:
        """One request: its JSON on 2xx, ``LoginRefused(refused)`` on 4xx,
        ``DiscordAway`` when Discord is away (5xx, no answer)."""
        try:
            async with request as response:
                if 400 <= response.status < 500:
                    raise LoginRefused(refused, f"Discord answered {response.status}")
                if response.status >= 300:
                    raise DiscordAway(f"Discord answered {response.status}")
                data = await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise DiscordAway(str(exc) or type(exc).__name__) from exc
        if not isinstance(data, dict):
            raise DiscordAway("not a JSON object")
        return data
