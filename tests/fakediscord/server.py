"""A fake Discord on 127.0.0.1: REST v10 and the gateway websocket, for the real discord.py.

It keeps what Discord keeps (guilds, channels, members, messages with their files, registered
commands, interactions), answers the way Discord answers (including the odd parts discord.py
relies on, see docs/ARCHITECTURE.md, "Testing without Discord"), records every request it gets, and
fails on purpose when a test asks (``faults``). People (``people.Person``) act on it.

It tells the bot's gateway session what Discord would tell it: its own messages and other
people's, typing and reactions as well as servers and threads, each only if the session's
IDENTIFY asked for its intent (``intents.py``; ``GatewaySession.withheld`` counts the rest).
It shards as Discord does (``shards=N``: one gateway session per shard, a server's events to
the shard that owns it, DM events to shard 0), opens modals for people to fill in, and counts
rate-limited requests apart from interaction ones; with ``limits=True`` it also enforces the
token's global and per-channel rate limits (``limits.py``).

``FakeDiscord`` is the facade over the parts, each with one job:

- ``world.py``: the world it models (servers, channels, threads, DMs, people, messages) and
  the waiter ``wait_for``; ``FakeDiscord`` is a ``World``, so a test reads that state here.
- ``gateway.py``: the gateway sessions of the bot's shards and the events sent to them.
- ``rest.py``: the REST router (recording, rate limits, faults, the token) and the route
  groups it serves: ``routes/`` (the bot's application, channels, servers) and
  ``interactions.py`` (starting interactions; callbacks, follow-ups, webhooks, modals).
- the rules every request meets: ``validation.py``, ``limits.py``, ``faults.py``.
- ``people.py``: the people who act through the Discord app, and talk around it
  (``chatter.py``: a busy server's messages, typing and reactions at a steady rate).
- ``intents.py``: which gateway events a session is sent, by the intents it asked for.
- ``installs.py`` and ``private_channels.py``: an app installed to people's accounts, and
  the places the bot is not in where they use it (group DMs, DMs between people, servers
  that never invited it: ``private``), with Discord's refusals there; ``clock.py``: the
  clock interactions age by (``clock.advance``: a token's 15 minutes gone in a test).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from aiohttp import web

from .chatter import Chatter
from .clock import FakeClock
from .faults import Faults
from .gateway import Gateway, GatewaySession
from .guild import FakeGuild
from .installs import commands_visible
from .interaction import Interaction
from .interactions import InteractionDesk
from .limits import RateLimits
from .messages import FakeMessage
from .modals import FakeModal
from .payloads import MEMBER_PERMISSIONS, snowflake
from .people import Person
from .private_channels import PrivateChannels
from .rest import RecordedRequest, RequestBody, RouteGroup, Router
from .routes import ActivityRoutes, ApplicationRoutes, ChannelRoutes, GuildRoutes
from .world import Member, World

log = logging.getLogger(__name__)


class FakeDiscord(World):
    """The fake server. ``async with FakeDiscord() as discord:`` starts and stops it."""

    def __init__(self, *, token: str = "fake-token", bot_name: str = "Sequence",
                 interaction_deadline: float = 3.0, port: int = 0, shards: int = 1,
                 enforce_shards: bool = False, limits: bool = False,
                 activities: bool = False) -> None:
        """``activities``: the application has an Activity (its entry point command made,
        LAUNCH_ACTIVITY allowed: ``routes/activities.py``)."""
        super().__init__(token=token, bot_name=bot_name, shards=shards, port=port)
        self.faults = Faults()
        #: Discord's rate limits; enforced only when on (``limits=True`` or ``.enable()``)
        self.limits = RateLimits(enabled=limits)
        self.gateway = Gateway(self, enforce_shards=enforce_shards)
        #: what interactions age by; ``clock.advance(s)`` makes them ``s`` older
        self.clock = FakeClock()
        self.desk = InteractionDesk(self, self.gateway, deadline=interaction_deadline,
                                    clock=self.clock)
        #: group DMs, DMs between people, servers without the bot (``private_channels.py``)
        self.private = PrivateChannels(self)
        self.router = Router(token=token, faults=self.faults, limits=self.limits,
                             changed=self.changed, answer=self._answer)
        #: OAuth2, activity instances, LAUNCH_ACTIVITY, the entry point command
        self.activities = ActivityRoutes(self, self.desk, enabled=activities)
        groups: list[RouteGroup] = [ApplicationRoutes(self), self.desk,
                                    ChannelRoutes(self, self.faults), GuildRoutes(self),
                                    self.activities]
        for group in groups:
            group.register(self.router)
        self._runner: web.AppRunner | None = None

    # ----------------------------------------------------------------- lifecycle
    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        self.gateway.serve(app)
        self.router.serve(app)
        app.router.add_get("/attachments/{id}/{name}", self._attachment)
        # a request still being answered when the fake closes (a gateway just opened, a
        # client's keep-alive) is cut after a second, as a server going away cuts it, not
        # waited for a minute (aiohttp's default), which made closing hang
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False,
                                     shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]  # (port 0 asked: the one given)
        log.debug("fake Discord listening on %s", self.http_base)

    async def close(self) -> None:
        await self.gateway.close()
        if self._runner is not None:
            await asyncio.wait_for(self._runner.cleanup(), 5.0)
            self._runner = None

    @contextlib.contextmanager
    def pointed_at(self) -> Iterator[None]:
        """Point discord.py (this process) here: its REST base and its default gateway.

        The same two class attributes the bot sets from ``DISCORD_API_BASE`` and
        ``DISCORD_GATEWAY_URL``; restored on exit so tests do not leak into each other.
        """
        import discord.gateway
        import discord.http
        import yarl

        old = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old

    async def _attachment(self, request: web.Request) -> web.Response:
        f = self.attachment(int(request.match_info["id"]))
        if f is None:
            return web.Response(status=404)
        return web.Response(body=f.data, content_type=f.content_type or "image/png")

    async def _answer(self, request: web.Request, path: str, body: RequestBody
                      ) -> web.StreamResponse:
        """After recording and the rate limits: faults, then the route (a subclass may act
        first, as ``tests/reliability/harness.RecordingDiscord`` does)."""
        return await self.router.answer(request, path, body)

    # ----------------------------------------------------------------- people
    def add_person(self, name: str, guild: FakeGuild | None = None, *, locale: str = "en-US",
                   permissions: int = MEMBER_PERMISSIONS) -> Person:
        """A person in ``guild`` (the first guild by default), who can act through the bot."""
        guild = guild or next(iter(self.guilds.values()))
        person = Person(self, self.desk, snowflake(), name, guild, locale=locale,
                        permissions=permissions)
        self.join(person, name, guild)
        return person

    def chatter(self, guild: FakeGuild | None = None, *, per_second: float,
                limit: int = 10_000, seconds: float | None = None,
                channels: Iterable[int] | None = None, **options: Any) -> Chatter:
        """Its people talking in ``guild`` (the first by default) at ``per_second`` messages
        in all its channels (or ``channels``), with typing and reactions, until ``limit``
        messages or ``seconds`` (``chatter.py``); ``async with`` it, or ``start``/``stop``."""
        guild = guild or next(iter(self.guilds.values()))
        people = [p for p in self.people.values()
                  if isinstance(p, Person) and p.id in guild.member_ids]
        return Chatter(self, people, list(channels or guild.channel_ids),
                       per_second=per_second, limit=limit, seconds=seconds, **options)

    # ----------------------------------------------------------------- the gateway's
    def announce(self, event: str, data: dict[str, Any], guild_id: int | None, *,
                 live_only: bool = False) -> None:
        """To the gateway, unless it happened where the bot is not (``installs.Reach``):
        a server that never invited it, a channel it is not in."""
        channel = data.get("channel_id")
        if guild_id in self.reach.foreign_guilds or (
                channel is not None and int(channel) in self.reach.outside):
            return
        self.gateway.announce(event, data, guild_id, live_only=live_only)

    @property
    def enforce_shards(self) -> bool:
        """Refuse an IDENTIFY whose shard count is not ``shards`` (4011 if fewer, 4010 if more)."""
        return self.gateway.enforce_shards

    @enforce_shards.setter
    def enforce_shards(self, value: bool) -> None:
        self.gateway.enforce_shards = value

    @property
    def sessions(self) -> dict[int, GatewaySession]:
        """Shard id -> its gateway session."""
        return self.gateway.sessions

    @property
    def session(self) -> GatewaySession | None:
        """Shard 0's session: the only one for a bot that does not shard."""
        return self.gateway.session

    @property
    def gateway_received(self) -> list[dict[str, Any]]:
        """Every gateway frame the bot sent, in order."""
        return self.gateway.received

    @property
    def identified(self) -> int:
        return self.gateway.identified

    @property
    def resumed(self) -> int:
        return self.gateway.resumed

    def dispatch(self, event: str, data: dict[str, Any], guild_id: int | None = None) -> None:
        """Send a gateway event to the shard that owns it (``Gateway.dispatch``)."""
        self.gateway.dispatch(event, data, guild_id)

    def connected(self, shard: int | None = None) -> bool:
        """Whether ``shard`` (None: every one of ``shards``) has a live gateway connection."""
        return self.gateway.connected(shard)

    async def wait_until_connected(self, timeout: float = 5.0, *, shard: int | None = None
                                   ) -> None:
        """Wait until ``shard`` (None: every one of ``shards``) is connected."""
        await self.gateway.wait_until_connected(timeout, shard=shard)

    async def disconnect(self, *, resume: bool = True, shard: int = 0) -> None:
        """Drop a shard's gateway connection. ``resume``: it may RESUME; else it must IDENTIFY."""
        await self.gateway.disconnect(resume=resume, shard=shard)

    # ----------------------------------------------------------------- the desk's
    @property
    def interaction_deadline(self) -> float:
        """Seconds the bot has to answer an interaction (Discord's 3)."""
        return self.desk.deadline

    @interaction_deadline.setter
    def interaction_deadline(self, value: float) -> None:
        self.desk.deadline = value

    @property
    def interactions(self) -> dict[int, Interaction]:
        """Every interaction people started, by id, oldest first."""
        return self.desk.started

    @property
    def modals(self) -> list[FakeModal]:
        """Every modal the bot opened, oldest first."""
        return self.desk.modals

    def start_interaction(self, person: Member, kind: int, data: dict[str, Any],
                          channel_id: int, message: FakeMessage | None = None) -> Interaction:
        """Send INTERACTION_CREATE as Discord would when ``person`` acts in ``channel_id``."""
        return self.desk.start(person, kind, data, channel_id, message)

    def open_modal(self, user_id: int) -> FakeModal | None:
        """The modal on ``user_id``'s screen (the newest still open), or None."""
        return self.desk.open_modal(user_id)

    # ----------------------------------------------------------------- installs
    def commands_visible(self, *, context: int, guild_id: int | None = None,
                         installed_by_user: bool = False) -> list[dict[str, Any]]:
        """The commands (as Discord keeps them) a person sees in ``context`` (0 a server,
        1 the bot's DM, 2 a group DM or a DM between people): in ``guild_id`` (context 0),
        as one who installed the app to their account or not (``installs.py``)."""
        return commands_visible(self.commands, context=context, guild_id=guild_id,
                                guild_installed=self.reach.guild_installed(guild_id),
                                installed_by_user=installed_by_user)

    # ----------------------------------------------------------------- the router's
    @property
    def requests(self) -> list[RecordedRequest]:
        """Every REST request the bot made, in arrival order."""
        return self.router.requests

    @property
    def unhandled(self) -> list[str]:
        """``METHOD /path`` of each request the fake has no route for."""
        return self.router.unhandled

    def recently(self) -> str:
        return self.router.recently()

    def rate_limited_requests(self) -> list[RecordedRequest]:
        """Every REST request that counts against the token's global budget (all but the
        interaction endpoints), 429s included, in arrival order."""
        return self.router.rate_limited_requests()

    def interaction_requests(self) -> list[RecordedRequest]:
        """Requests on interaction endpoints: callbacks, followups, @original edits."""
        return self.router.interaction_requests()

    def refused_requests(self, codes: Iterable[int] | None = None) -> list[RecordedRequest]:
        """Requests the fake refused as Discord would (4xx, 429s aside), in arrival order;
        ``codes``: only these (``rest.USER_INSTALL_REFUSALS``: 50001, 40094, 10015)."""
        return self.router.refused_requests(codes)

    def route_counts(self, requests: Iterable[RecordedRequest] | None = None) -> Counter[str]:
        """How many requests took each route (``requests``: all of them by default)."""
        return self.router.route_counts(requests)

    @property
    def rate_limit_hits(self) -> int:
        """The 429s the enforced limits sent (not those a test injected with ``faults``)."""
        return self.limits.hits
