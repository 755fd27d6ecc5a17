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
``trace`` handed in: ``runtime/budget.py``'s), at its lowest step (``LOOKUP``, through the
``urgent`` handed in: after every board and hand); the OAuth2 calls are the player's own,
outside the bot's budget.

A look-up is what a stranger with a session can make the bot ask as often as they like
(a made-up instance each time), so it is bounded (``lookups``: a ``doors.Door`` in all and
per person), and a no is remembered: an instance Discord does not know (404) for
``absent_seconds``, one that does not list a person for ``unlisted_seconds`` (for that
person); asked again meanwhile, it costs nothing. Several hellos naming the same instance
at once share one request. A 404 is not asked again; the 3 tries (``INSTANCE_TRIES``) are
for a real instance that does not list its new member yet. Discord's 429 shuts the door
for as long as it says (``Busy``), and nothing is tried again meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import aiohttp

from .doors import Door, reason

log = logging.getLogger(__name__)

TIMEOUT = aiohttp.ClientTimeout(total=10)
INSTANCE_SECONDS = 30.0  # how long an instance's answer is reused (a page reconnecting)
INSTANCE_TRIES = 3  # a person just opened it: Discord may list them a moment later
INSTANCE_WAIT = 0.5
ABSENT_SECONDS = 30.0  # an instance Discord does not know is not asked about again
UNLISTED_SECONDS = 10.0  # nor one that did not list a person, for that person
REMEMBERED = 10_000  # noes remembered at most
#: Discord's instance ids: letters, digits, dashes (``i-<snowflake>-gc-<guild>-<channel>``);
#: nothing else goes into the look-up's path
INSTANCE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
#: the REST budget's step for a look-up: below every other (``runtime/fair_pace.py``, BELOW)
LOOKUP = -1
LONGEST_WAIT = 3600.0  # seconds: a 429 asking longer is a ban, not a wait (said as an hour)

Urgency = Callable[[int], contextlib.AbstractContextManager[None]]


class LoginRefused(Exception):
    """Discord did not vouch for this person (a bad or used code, a bad token), or for
    this place (no such instance, or the person is not in it). ``code`` names which."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code


class DiscordAway(Exception):
    """Discord did not answer (or answered 5xx): nothing is known, try again later."""


class Busy(Exception):
    """Not now, and Discord was not asked: a bound of ours, or Discord's own 429. Try again
    in ``retry_after`` seconds; ``why`` and ``who`` say it in the log."""

    def __init__(self, retry_after: float, why: str, who: str = "") -> None:
        super().__init__(f"{why} {who}".strip())
        self.retry_after, self.why, self.who = retry_after, why, who


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
                 trace: aiohttp.TraceConfig | None = None, urgent: Urgency | None = None,
                 lookups: Door | None = None, absent_seconds: float = ABSENT_SECONDS,
                 unlisted_seconds: float = UNLISTED_SECONDS) -> None:
        """``trace`` and ``urgent``: the bot's REST budget and its steps (``runtime/
        budget.py``); ``lookups``: the bound on instance look-ups (None: none)."""
        self.api_base = api_base.rstrip("/")
        self._bot_token = bot_token
        self._client_secret = client_secret
        self._trace = trace
        self._urgent: Urgency = urgent or (lambda steps: contextlib.nullcontext())
        self._lookups = lookups
        self.absent_seconds, self.unlisted_seconds = absent_seconds, unlisted_seconds
        self.application_id: int | None = None  # known once the bot has logged in
        self._user: aiohttp.ClientSession | None = None
        self._bot: aiohttp.ClientSession | None = None
        self._places: dict[str, tuple[float, Place]] = {}
        self._noes: dict[Hashable, tuple[float, str]] = {}  # (until, code) by instance
        self._asking: dict[str, asyncio.Future[Place]] = {}  # look-ups under way
        self.looked_up = 0  # requests made for instances (tests, the bench)

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
        moment later if not yet: a person who just opened it may be listed late).
        ``LoginRefused`` when Discord says no (or said so a moment ago), ``Busy`` past the
        bounds."""
        if not INSTANCE_ID.fullmatch(instance_id):
            raise LoginRefused("no_activity", "not an instance id")
        for key in (instance_id, (instance_id, user_id)):
            remembered = self._noes.get(key)
            if remembered is not None and time.monotonic() < remembered[0]:
                raise LoginRefused(remembered[1], "Discord said so a moment ago")
        for attempt in range(INSTANCE_TRIES):
            place = await self._instance(instance_id, user_id, fresh=attempt > 0)
            if user_id in place.users:
                return place
            if attempt + 1 < INSTANCE_TRIES:
                await asyncio.sleep(INSTANCE_WAIT)
        self._remember((instance_id, user_id), "not_in_activity", self.unlisted_seconds)
        raise LoginRefused("not_in_activity", f"user {user_id} is not in {instance_id}")

    async def _instance(self, instance_id: str, user_id: int, *, fresh: bool) -> Place:
        now = time.monotonic()
        cached = self._places.get(instance_id)
        if cached is not None and not fresh and now - cached[0] < INSTANCE_SECONDS:
            return cached[1]
        if self.application_id is None:
            raise DiscordAway("the bot has not logged in yet")
        asking = self._asking.get(instance_id)
        if asking is None:  # (else: the answer already asked for is this one's too)
            if self._lookups is not None:
                wait, why = self._lookups.let_in(user_id)
                if wait:
                    raise Busy(wait, *reason(why, f"for user {user_id}"))
            asking = asyncio.ensure_future(self._ask(instance_id))
            self._asking[instance_id] = asking
            asking.add_done_callback(lambda done: self._asked(instance_id, done))
        try:
            return await asyncio.shield(asking)
        finally:
            # (its no, raised here, keeps this frame in its traceback: the frame must not
            # keep the look-up holding that no, or each refused hello is a reference
            # cycle, with its socket, left for the collector)
            del asking

    def _asked(self, instance_id: str, done: asyncio.Future[Place]) -> None:
        self._asking.pop(instance_id, None)
        if not done.cancelled():
            done.exception()  # (retrieved: every page that asked has given up)

    async def _ask(self, instance_id: str) -> Place:
        _, bot = self._sessions()
        url = f"{self.api_base}/applications/{self.application_id}/activity-instances/" \
              f"{instance_id}"
        self.looked_up += 1
        try:
            with self._urgent(LOOKUP):
                data = await self._call(bot.get(url), refused="no_activity")
        except Busy as exc:
            if self._lookups is not None:
                self._lookups.shut_for(exc.retry_after)
            raise
        except LoginRefused as exc:
            self._remember(instance_id, exc.code, self.absent_seconds)  # (not tried again)
            raise
        try:
            location = data["location"]
            guild = location.get("guild_id")
            place = Place(str(data["instance_id"]), int(location["channel_id"]),
                          int(guild) if guild else None,
                          frozenset(int(u) for u in data.get("users") or ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise LoginRefused("no_activity", "no location") from exc
        now = time.monotonic()
        if len(self._places) > 1000:  # (a bounded memory of the instances in use)
            self._places = {k: v for k, v in self._places.items()
                            if now - v[0] < INSTANCE_SECONDS}
        self._places[instance_id] = (now, place)
        return place

    def _remember(self, key: Hashable, code: str, seconds: float) -> None:
        now = time.monotonic()
        if len(self._noes) >= REMEMBERED:
            self._noes = {k: v for k, v in self._noes.items() if v[0] > now}
            while len(self._noes) >= REMEMBERED:  # (the oldest go first)
                del self._noes[next(iter(self._noes))]
        self._noes[key] = (now + seconds, code)

    async def _call(self, request: Any, *, refused: str) -> dict[str, Any]:
        """One request: its JSON on 2xx, ``LoginRefused(refused)`` on 4xx,
        ``DiscordAway`` when Discord is away (5xx, no answer)."""
        try:
            async with request as response:
                if response.status == 429:  # (never tried again: Discord said to wait)
                    raise Busy(await _wait_of(response), "Discord asked to wait (429)")
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


async def _wait_of(response: aiohttp.ClientResponse) -> float:
    """How long a 429 asks to wait: its ``Retry-After``, else its body's ``retry_after``
    (Discord sends both); a second when it says neither."""
    said: Any = response.headers.get("Retry-After")
    if said is None:
        with contextlib.suppress(ValueError, aiohttp.ClientError):
            body = await response.json(content_type=None)
            said = body.get("retry_after") if isinstance(body, dict) else None
    try:
        seconds = float(said)
    except (TypeError, ValueError):
        return 1.0
    return min(seconds, LONGEST_WAIT) if math.isfinite(seconds) and seconds > 0 else 1.0

