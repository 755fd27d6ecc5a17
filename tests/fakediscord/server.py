"""A fake Discord on 127.0.0.1: REST v10 and the gateway websocket, for the real discord.py.

It keeps what Discord keeps (guilds, channels, members, messages with their files, registered
commands, interactions), answers the way Discord answers (including the odd parts discord.py
relies on, see docs/ARCHITECTURE.md, "Testing without Discord"), records every request it gets, and
fails on purpose when a test asks (``faults``). People (``people.Person``) act on it.

It shards as Discord does (``shards=N``: one gateway session per shard, a server's events to
the shard that owns it, DM events to shard 0), opens modals for people to fill in, and counts
rate-limited requests apart from interaction ones; with ``limits=True`` it also enforces the
token's global and per-channel rate limits (``limits.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import WSMsgType, web

from .activities import Activities
from .faults import Faults
from .limits import RateLimits, is_interaction_endpoint, route_of
from .messages import EPHEMERAL, LOADING, FakeFile, FakeMessage
from .modals import FakeModal
from .payloads import (
    ADMINISTRATOR,
    MEMBER_PERMISSIONS,
    dm_channel_payload,
    everyone_role_payload,
    member_payload,
    message_payload,
    now_iso,
    snowflake,
    text_channel_payload,
    thread_payload,
    user_payload,
)
from .validation import check_autocomplete_choices, check_message_payload, check_modal

if TYPE_CHECKING:
    from .people import Person

log = logging.getLogger(__name__)
T = TypeVar("T")

API_PREFIX = "/api/v10"
GATEWAY_PATH = "/gateway-ws/"
HEARTBEAT_INTERVAL_MS = 41_250
JSON = "application/json"  # exactly this: discord.py only parses an exact match
ALL_PERMISSIONS = (1 << 53) - 1


class HttpError(Exception):
    """An error answer in Discord's shape: ``{"message": ..., "code": ...}``."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message = status, code, message


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


@dataclass
class RecordedRequest:
    """One request the bot made, as received (for leak checks and call counts)."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    files: list[tuple[str, bytes]]
    status: int = 0
    at: float = 0.0
    via: str | None = None  # the ``Via`` header: which proxy it came through, if any

    @property
    def route(self) -> str:
        """``POST /channels/{id}/messages``: the request with ids and tokens left out."""
        return route_of(self.method, self.path)

    @property
    def interaction(self) -> bool:
        """On an interaction endpoint (callback, followup, @original): outside the global
        budget. Every other request counts against the token's 50 a second."""
        return is_interaction_endpoint(self.path)


@dataclass
class Interaction:
    """An interaction a person started, and everything the bot answered to it."""

    server: FakeDiscord
    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    guild_id: int | None
    payload: dict[str, Any]
    sent_at: float
    message: FakeMessage | None = None  # the clicked message, for components
    callback_type: int | None = None
    acked_at: float | None = None
    original: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None

    async def wait_ack(self, timeout: float = 5.0) -> Interaction:
        await self.server.wait_for(lambda: self.acknowledged, timeout,
                                   f"the bot to acknowledge interaction {self.payload['data']}")
        return self

    async def reply(self, timeout: float = 5.0) -> FakeMessage:
        """The answer the person reads: the response, the filled-in deferral, or a followup."""
        await self.wait_ack(timeout)

        def answer() -> FakeMessage | None:
            if self.callback_type in (4, 7) and self.original is not None:
                return self.original
            if self.followups:
                return self.followups[0]
            if self.callback_type == 5 and self.original and not self.original.loading:
                return self.original
            return None

        return await self.server.wait_for(answer, timeout, "the bot's reply")

    def __repr__(self) -> str:
        return f"<Interaction {self.id} type={self.type} callback={self.callback_type}>"


@dataclass
class GatewaySession:
    """One IDENTIFYed gateway session: one shard of the bot (shard 0 of 1 when unsharded)."""

    id: str
    shard_id: int = 0
    shard_count: int = 1
    seq: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)
    ws: web.WebSocketResponse | None = None
    intents: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


Handler = Callable[[web.Request, re.Match[str], "RequestBody"], Awaitable[Any]]


@dataclass
class RequestBody:
    json: Any
    files: list[tuple[str, bytes, str | None]]


class FakeDiscord:
    """The fake server. ``async with FakeDiscord() as discord:`` starts and stops it."""

    def __init__(self, *, token: str = "fake-token", bot_name: str = "Sequence",
                 interaction_deadline: float = 3.0, port: int = 0, shards: int = 1,
                 enforce_shards: bool = False, limits: bool = False,
                 activities: bool = False) -> None:
        if shards < 1:
            raise ValueError("shards must be at least 1")
        self.token = token
        #: the shard count ``GET /gateway/bot`` recommends; ``add_guild(shard=k)`` uses it
        self.shards = shards
        #: refuse an IDENTIFY whose shard count is not ``shards`` (4011 if fewer, 4010 if more)
        self.enforce_shards = enforce_shards
        self.application_id = snowflake()
        self.bot_user = user_payload(self.application_id, bot_name, bot=True)
        self.owner_user = user_payload(snowflake(), "Owner")
        self.interaction_deadline = interaction_deadline
        self.faults = Faults()
        #: Discord's rate limits; enforced only when on (``limits=True`` or ``.enable()``)
        self.limits = RateLimits(enabled=limits)
        self.guilds: dict[int, FakeGuild] = {}
        self.users: dict[int, dict[str, Any]] = {self.application_id: self.bot_user}
        self.people: dict[int, Person] = {}
        self.channels: dict[int, dict[str, Any]] = {}
        self.threads: dict[int, int] = {}  # thread -> the channel it was opened in
        self.nonces: dict[tuple[int, str], FakeMessage] = {}  # enforce_nonce memory
        self.nonce_repeats = 0  # retries answered with the message made the first time
        self.channel_guild: dict[int, int] = {}
        self.dm_channel_of: dict[int, int] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.channel_messages: dict[int, list[FakeMessage]] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.interactions: dict[int, Interaction] = {}
        self.modals: list[FakeModal] = []  # every modal the bot opened, oldest first
        self.requests: list[RecordedRequest] = []
        self.unhandled: list[str] = []
        self.gateway_received: list[dict[str, Any]] = []
        self.identified = 0
        self.resumed = 0
        self.sessions: dict[int, GatewaySession] = {}  # shard id -> its session
        self.port = port  # 0: any free port; kept, so a restart comes back on the same one
        self._runner: web.AppRunner | None = None
        self._event = asyncio.Event()
        self._sockets: set[web.WebSocketResponse] = set()
        self._routes: list[tuple[str, re.Pattern[str], Handler, bool]] = []
        #: the Activity side (OAuth2, activity instances, LAUNCH_ACTIVITY, the entry point
        #: command); ``activities=True``: the application has Activities turned on
        self.activities = Activities(self, enabled=activities)
        self._add_routes()

    # ----------------------------------------------------------------- lifecycle
    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get(GATEWAY_PATH, self._gateway)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        app.router.add_get("/attachments/{id}/{name}", self._attachment)
        # a request still being answered when the fake closes (a gateway just opened, a
        # client's keep-alive) is cut after a second, as a server going away cuts it, not
        # waited for a minute (aiohttp's default), which made closing hang
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False,
                                     shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        log.debug("fake Discord listening on %s", self.http_base)

    async def close(self) -> None:
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1001), 1.0)
        if self._runner is not None:
            await asyncio.wait_for(self._runner.cleanup(), 5.0)
            self._runner = None

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

    # ----------------------------------------------------------------- world
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

    def add_thread(self, parent_id: int, name: str, owner_id: int) -> int:
        """A public thread somebody (not the bot) opened in ``parent_id``; its id."""
        thread = self._open_thread(snowflake(), parent_id, name, owner_id, 1440)
        self._changed()
        return int(thread["id"])

    def _open_thread(self, thread_id: int, parent_id: int, name: str, owner_id: int,
                     auto_archive_duration: int) -> dict[str, Any]:
        guild_id = self.channel_guild[parent_id]
        thread = thread_payload(thread_id, guild_id, parent_id, name, owner_id,
                                auto_archive_duration)
        self.channels[thread_id] = thread
        self.channel_guild[thread_id] = guild_id
        self.channel_messages[thread_id] = []
        self.threads[thread_id] = parent_id
        if self._sessions_for(guild_id):
            self.dispatch("THREAD_CREATE", {**thread, "newly_created": True})
        return thread

    def add_person(self, name: str, guild: FakeGuild | None = None, *, locale: str = "en-US",
                   permissions: int = MEMBER_PERMISSIONS) -> Person:
        """A person in ``guild`` (the first guild by default), who can act through the bot."""
        from .people import Person

        guild = guild or next(iter(self.guilds.values()))
        user_id = snowflake()
        self.users[user_id] = user_payload(user_id, name)
        person = Person(self, user_id, name, guild, locale=locale, permissions=permissions)
        self.people[user_id] = person
        guild.member_ids.append(user_id)
        if any(s.ws is not None for s in self._sessions_for(guild.id)):
            self.dispatch("GUILD_MEMBER_ADD", {**member_payload(self.users[user_id]),
                                               "guild_id": str(guild.id)})
        return person

    def member_permissions(self, user_id: int, guild: FakeGuild) -> int:
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        person = self.people.get(user_id)
        perms = person.permissions if person else guild.everyone_permissions
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def guild_payload(self, guild: FakeGuild) -> dict[str, Any]:
        members = [member_payload(self.users[uid]) for uid in guild.member_ids]
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "owner_id": str(guild.owner_id),
            "preferred_locale": guild.locale,
            "roles": [everyone_role_payload(guild.id, guild.everyone_permissions)],
            "channels": [self.channels[c] for c in guild.channel_ids],
            "threads": [self.channels[t] for t in self.threads
                        if self.channel_guild.get(t) == guild.id],
            "members": members,
            # must equal len(members), or with the members intent discord.py waits for a chunk
            "member_count": len(members),
            "emojis": [],
            "stickers": [],
            "features": [],
            "presences": [],
            "voice_states": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "large": False,
            "unavailable": False,
            "joined_at": now_iso(),
            "premium_tier": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "verification_level": 0,
            "explicit_content_filter": 0,
            "default_message_notifications": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "description": None,
            "banner": None,
            "splash": None,
            "discovery_splash": None,
            "vanity_url_code": None,
            "premium_subscription_count": 0,
            "max_members": 500000,
            "application_id": None,
        }

    def dm_channel(self, user_id: int) -> int:
        channel_id = self.dm_channel_of.get(user_id)
        if channel_id is None:
            channel_id = snowflake()
            self.channels[channel_id] = dm_channel_payload(channel_id, self.users[user_id])
            self.channel_messages[channel_id] = []
            self.dm_channel_of[user_id] = channel_id
        return channel_id

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

    async def wait_for(self, predicate: Callable[[], T | None], timeout: float = 5.0,
                       what: str = "a condition") -> T:
        """Wait until ``predicate()`` is truthy (checked after every change), and return it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"fake Discord: timed out after {timeout} s waiting for {what}")
            event = self._event
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    def _changed(self) -> None:
        event, self._event = self._event, asyncio.Event()
        event.set()

    def changed(self) -> None:
        """Wake whoever waits (``wait_for``): something the fake keeps changed."""
        self._changed()

    # ----------------------------------------------------------------- counting
    def rate_limited_requests(self) -> list[RecordedRequest]:
        """Every REST request that counts against the token's global budget (all but the
        interaction endpoints), 429s included, in arrival order."""
        return [r for r in self.requests if not r.interaction]

    def interaction_requests(self) -> list[RecordedRequest]:
        """Requests on interaction endpoints: callbacks, followups, @original edits."""
        return [r for r in self.requests if r.interaction]

    def route_counts(self, requests: Iterable[RecordedRequest] | None = None) -> Counter[str]:
        """How many requests took each route (``requests``: all of them by default)."""
        return Counter(r.route for r in (self.requests if requests is None else requests))

    @property
    def rate_limit_hits(self) -> int:
        """The 429s the enforced limits sent (not those a test injected with ``faults``)."""
        return self.limits.hits

    # ----------------------------------------------------------------- gateway
    @property
    def session(self) -> GatewaySession | None:
        """Shard 0's session: the only one for a bot that does not shard."""
        return self.sessions.get(0)

    def shard_of(self, guild_id: int, shard_count: int | None = None) -> int:
        """The shard that owns a server, by Discord's rule ``(guild_id >> 22) % shard_count``."""
        return (guild_id >> 22) % (shard_count or self.shards)

    def _sessions_for(self, guild_id: int | None) -> list[GatewaySession]:
        """Where Discord sends an event: the owning shard's session; DMs go to shard 0."""
        if guild_id is None:
            return [s for s in self.sessions.values() if s.shard_id == 0]
        return [s for s in self.sessions.values()
                if (guild_id >> 22) % s.shard_count == s.shard_id]

    def dispatch(self, event: str, data: dict[str, Any], guild_id: int | None = None) -> None:
        """Send a gateway event to the shard that owns it (buffered for a resume if away).

        The server is ``guild_id`` or else the event's own ``guild_id``; without one (a DM)
        the event goes to shard 0, as Discord does.
        """
        if guild_id is None and data.get("guild_id") is not None:
            guild_id = int(data["guild_id"])
        sessions = self._sessions_for(guild_id)
        if not sessions:
            shard = 0 if guild_id is None else f"owning server {guild_id}"
            raise RuntimeError(f"the bot has not identified on the gateway yet (shard {shard})")
        for session in sessions:
            self._dispatch_to(session, event, data)

    def _dispatch_to(self, session: GatewaySession, event: str, data: dict[str, Any]) -> None:
        session.seq += 1
        frame = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.sent.append(frame)
        if session.ws is not None and not session.ws.closed:
            asyncio.get_running_loop().create_task(self._send(session, session.ws, frame))

    async def _send(self, session: GatewaySession, ws: web.WebSocketResponse,
                    frame: dict[str, Any]) -> None:
        async with session.lock:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(json.dumps(frame))

    def connected(self, shard: int | None = None) -> bool:
        """Whether ``shard`` (None: every one of ``shards``) has a live gateway connection."""
        wanted = range(self.shards) if shard is None else [shard]
        for shard_id in wanted:
            session = self.sessions.get(shard_id)
            if session is None or session.ws is None or session.ws.closed:
                return False
        return True

    async def wait_until_connected(self, timeout: float = 5.0, *, shard: int | None = None
                                   ) -> None:
        """Wait until ``shard`` (None: every one of ``shards``) is connected."""
        await self.wait_for(lambda: self.connected(shard), timeout, "the bot to identify")

    async def disconnect(self, *, resume: bool = True, shard: int = 0) -> None:
        """Drop a shard's gateway connection. ``resume``: it may RESUME; else it must IDENTIFY."""
        session = self.sessions.get(shard)
        if session is None or session.ws is None:
            return
        ws = session.ws
        if resume:
            await ws.close(code=4000, message=b"fake Discord: unknown error")
        else:
            await self._send(session, ws, {"op": 9, "d": False, "s": None, "t": None})
            del self.sessions[shard]

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._sockets.add(ws)
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS},
                                      "s": None, "t": None}))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                self.gateway_received.append(frame)
                await self._on_gateway_frame(ws, frame)
        finally:
            self._sockets.discard(ws)
            for session in self.sessions.values():
                if session.ws is ws:
                    session.ws = None
            self._changed()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> None:
        if d.get("token") != self.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return
        shard_id, shard_count = (int(x) for x in d.get("shard") or (0, 1))
        if shard_count < 1 or not 0 <= shard_id < shard_count:
            await ws.close(code=4010, message=b"Invalid shard.")
            return
        if self.enforce_shards and shard_count != self.shards:
            if shard_count < self.shards:
                await ws.close(code=4011, message=b"Sharding required.")
            else:
                await ws.close(code=4010, message=b"Invalid shard.")
            return
        session = GatewaySession(secrets.token_hex(16), shard_id, shard_count, ws=ws,
                                 intents=int(d.get("intents", 0)))
        self.sessions[shard_id] = session
        self.identified += 1
        owned = [g for g in self.guilds.values() if self.shard_of(g.id, shard_count) == shard_id]
        self._dispatch_to(session, "READY", {
            "v": 10,
            "user": self.bot_user,
            "guilds": [{"id": str(g.id), "unavailable": True} for g in owned],
            "session_id": session.id,
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
            "shard": [shard_id, shard_count],
        })
        for guild in owned:
            self._dispatch_to(session, "GUILD_CREATE", self.guild_payload(guild))
        self._changed()

    async def _on_gateway_frame(self, ws: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        op, d = frame.get("op"), frame.get("d")
        if op == 1:  # heartbeat
            await ws.send_str(json.dumps({"op": 11, "d": None, "s": None, "t": None}))
        elif op == 2:  # identify
            await self._identify(ws, d)
        elif op == 6:  # resume
            session = next((s for s in self.sessions.values()
                            if s.id == d.get("session_id")), None)
            if session is None or d.get("token") != self.token:
                await ws.send_str(json.dumps({"op": 9, "d": False, "s": None, "t": None}))
                return
            session.ws = ws
            self.resumed += 1
            for frame_out in session.sent:
                if frame_out["s"] > int(d.get("seq") or 0):
                    await self._send(session, ws, frame_out)
            self._dispatch_to(session, "RESUMED", {})
            self._changed()
        elif op == 8:  # request guild members
            guild = self.guilds.get(int(d["guild_id"]))
            if guild is not None:
                self.dispatch("GUILD_MEMBERS_CHUNK", {
                    "guild_id": str(guild.id), "chunk_index": 0, "chunk_count": 1,
                    "members": [member_payload(self.users[u]) for u in guild.member_ids],
                    "nonce": d.get("nonce"),
                })

    # ----------------------------------------------------------------- REST plumbing
    def _route(self, method: str, pattern: str, handler: Handler, *, auth: bool = True) -> None:
        self._routes.append((method, re.compile("^" + pattern + "$"), handler, auth))

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body = await self._read_body(request)
        record = RecordedRequest(request.method, path, dict(request.query), body.json,
                                 [(name, data) for name, data, _ in body.files],
                                 at=time.perf_counter(), via=request.headers.get("Via"))
        self.requests.append(record)
        decision = self.limits.decide(request.method, path)
        if decision is not None and decision.refused is not None:
            response: web.StreamResponse = _json_response(429, decision.refused,
                                                          decision.headers)
        else:
            response = await self._answer(request, path, body)
            if decision is not None:
                response.headers.update(decision.headers)
        record.status = response.status
        self._changed()
        return response

    async def _answer(self, request: web.Request, path: str, body: RequestBody
                      ) -> web.StreamResponse:
        fault = self.faults.take(request.method, path)
        if fault is not None and fault.after_handling:
            # the worst 5xx: the request went through, but the answer is lost on the way
            await self._route_request(request, path, body)
            return web.Response(status=fault.status, text="upstream error")
        if fault is not None:
            if fault.status == 429:
                return _json_response(
                    429, {"message": "You are being rate limited.",
                          "retry_after": fault.retry_after, "global": False},
                    {"Via": "1.1 google", "X-RateLimit-Scope": "user"})
            return web.Response(status=fault.status, text="upstream error")
        return await self._route_request(request, path, body)

    async def _route_request(self, request: web.Request, path: str, body: RequestBody
                             ) -> web.StreamResponse:
        for method, pattern, handler, auth in self._routes:
            if method != request.method:
                continue
            match = pattern.match(path)
            if match is None:
                continue
            if auth and request.headers.get("Authorization") != f"Bot {self.token}":
                return _error(HttpError(401, 0, "401: Unauthorized"))
            try:
                result = await handler(request, match, body)
            except HttpError as exc:
                return _error(exc)
            if result is None:
                return web.Response(status=204)
            return _json_response(200, result)
        self.unhandled.append(f"{request.method} {path}")
        log.warning("fake Discord has no route for %s %s", request.method, path)
        return _error(HttpError(404, 0, "404: Not Found"))

    async def _read_body(self, request: web.Request) -> RequestBody:
        if not request.can_read_body:
            return RequestBody(None, [])
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            files: list[tuple[str, bytes, str | None]] = []
            reader = await request.multipart()
            async for part in reader:
                name = getattr(part, "name", None)
                data = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    payload = json.loads(data)
                else:
                    files.append((getattr(part, "filename", None) or name or "file", bytes(data),
                                  part.headers.get("Content-Type")))
            # The reader stops at the closing boundary; what follows (a CRLF) must be read
            # too, or aiohttp closes the keep-alive connection and the client's next request
            # on it fails with "Server disconnected".
            while not request.content.at_eof():
                await request.content.readany()
            return RequestBody(payload, files)
        if request.content_type == "application/x-www-form-urlencoded":
            return RequestBody(dict(await request.post()), [])  # (OAuth2's token exchange)
        text = await request.text()
        return RequestBody(json.loads(text) if text else None, [])

    async def _attachment(self, request: web.Request) -> web.Response:
        attachment_id = int(request.match_info["id"])
        for message in self.messages.values():
            for f in message.files:
                if f.id == attachment_id:
                    return web.Response(body=f.data, content_type=f.content_type or "image/png")
        return web.Response(status=404)

    # ----------------------------------------------------------------- REST routes
    def _add_routes(self) -> None:
        r = self._route
        app = r"(?P<app>\d+)"
        token = r"(?P<token>[^/]+)"
        msg = r"(?P<message>@original|\d+)"
        self.activities.add_routes(r)  # (first: /users/@me answers a Bearer token there)
        r("GET", r"/users/@me", self._get_me)
        r("GET", r"/users/(?P<user>\d+)", self._get_user)
        r("GET", r"/oauth2/applications/@me", self._get_application)
        r("GET", r"/applications/@me", self._get_application)
        r("GET", r"/gateway", self._get_gateway)
        r("GET", r"/gateway/bot", self._get_gateway_bot)
        r("PUT", rf"/applications/{app}/commands", self._put_commands)
        r("PUT", rf"/applications/{app}/guilds/(?P<guild>\d+)/commands", self._put_commands)
        r("GET", rf"/applications/{app}/commands", self._get_commands)
        r("GET", rf"/applications/{app}/guilds/(?P<guild>\d+)/commands", self._get_commands)
        r("POST", rf"/interactions/(?P<interaction>\d+)/{token}/callback", self._callback,
          auth=False)
        r("POST", rf"/webhooks/{app}/{token}", self._followup, auth=False)
        r("GET", rf"/webhooks/{app}/{token}/messages/{msg}", self._webhook_get, auth=False)
        r("PATCH", rf"/webhooks/{app}/{token}/messages/{msg}", self._webhook_edit, auth=False)
        r("DELETE", rf"/webhooks/{app}/{token}/messages/{msg}", self._webhook_delete, auth=False)
        r("POST", r"/users/@me/channels", self._open_dm)
        r("GET", r"/channels/(?P<channel>\d+)", self._get_channel)
        r("POST", r"/channels/(?P<channel>\d+)/messages", self._post_message)
        r("GET", r"/channels/(?P<channel>\d+)/messages", self._list_messages)
        r("GET", r"/channels/(?P<channel>\d+)/messages/(?P<message>\d+)", self._get_message)
        r("PATCH", r"/channels/(?P<channel>\d+)/messages/(?P<message>\d+)", self._edit_message)
        r("DELETE", r"/channels/(?P<channel>\d+)/messages/(?P<message>\d+)", self._delete_message)
        r("POST", r"/channels/(?P<channel>\d+)/typing", self._typing)
        r("POST", r"/channels/(?P<channel>\d+)/messages/(?P<message>\d+)/threads",
          self._start_thread)
        r("POST", r"/channels/(?P<channel>\d+)/threads", self._start_thread)
        r("DELETE", r"/channels/(?P<channel>\d+)", self._delete_thread)
        r("GET", r"/guilds/(?P<guild>\d+)", self._get_guild)
        r("GET", r"/guilds/(?P<guild>\d+)/members/(?P<user>\d+)", self._get_member)

    async def _get_me(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        return self.bot_user

    async def _get_user(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        user = self.users.get(int(m["user"]))
        if user is None:
            raise HttpError(404, 10013, "Unknown User")
        return user

    async def _get_application(self, request: web.Request, m: re.Match[str], body: RequestBody
                               ) -> Any:
        return {
            "id": str(self.application_id), "name": self.bot_user["username"], "icon": None,
            "description": "", "bot_public": True, "bot_require_code_grant": False,
            "owner": self.owner_user, "team": None, "verify_key": "0" * 64,
            "interactions_endpoint_url": None, "summary": "", "rpc_origins": [],
            "flags": self.activities.flags(),
            "bot": self.bot_user, "approximate_guild_count": len(self.guilds),
        }

    async def _get_gateway(self, request: web.Request, m: re.Match[str], body: RequestBody
                           ) -> Any:
        return {"url": self.gateway_url}

    async def _get_gateway_bot(self, request: web.Request, m: re.Match[str], body: RequestBody
                               ) -> Any:
        return {"url": self.gateway_url, "shards": self.shards,
                "session_start_limit": {"total": 1000, "remaining": 1000,
                                        "reset_after": 0, "max_concurrency": 1}}

    async def _put_commands(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        if int(m["app"]) != self.application_id:
            raise HttpError(403, 50001, "Missing Access")
        guild_id = int(m["guild"]) if m.groupdict().get("guild") else None
        if self.activities.enabled:
            self.activities.check_overwrite(guild_id, body.json or [])
        old = {c["name"]: c for c in self.commands.get(guild_id, [])}
        stored = []
        for command in body.json or []:
            previous = old.get(command["name"])
            entry = {
                "type": 1, "default_member_permissions": None, "nsfw": False,
                "name_localizations": None, "description_localizations": None,
                **command,
                "id": previous["id"] if previous else str(snowflake()),
                "application_id": str(self.application_id),
                "version": str(snowflake()),
            }
            if guild_id is not None:
                entry["guild_id"] = str(guild_id)
            stored.append(entry)
        self.commands[guild_id] = stored
        return stored

    async def _get_commands(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        guild_id = int(m["guild"]) if m.groupdict().get("guild") else None
        return self.commands.get(guild_id, [])

    # -- channels and messages
    def _channel(self, channel_id: int) -> dict[str, Any]:
        channel = self.channels.get(channel_id)
        if channel is None:
            raise HttpError(404, 10003, "Unknown Channel")
        return channel

    def _message(self, channel_id: int, message_id: int) -> FakeMessage:
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
        self._channel(channel_id)
        fake_files = _attached_files(payload, files, [])
        message = FakeMessage(
            message_payload(snowflake(), channel_id, self.bot_user, payload,
                            [self._attachment_payload(f) for f in fake_files],
                            guild_id=self.channel_guild.get(channel_id),
                            webhook_id=self.application_id if webhook else None,
                            flags=flags | (int(payload.get("flags") or 0) & EPHEMERAL)),
            fake_files, visible_to=visible_to, interaction_id=interaction_id)
        message.data["mentions"] = self._mentions(message.content)
        self.messages[message.id] = message
        self.channel_messages[channel_id].append(message)
        self._changed()
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
        self._changed()
        return message

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

    async def _open_dm(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        user_id = int(body.json["recipient_id"])
        if user_id not in self.users:
            raise HttpError(400, 50035, "Invalid Form Body: recipient_id")
        return self.channels[self.dm_channel(user_id)]

    async def _start_thread(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        """A public thread in a text channel, from one of its messages or on its own."""
        parent_id = int(m["channel"])
        parent = self._channel(parent_id)
        if parent.get("type") != 0:
            raise HttpError(400, 50024, "Cannot execute action on this channel type")
        if m.groupdict().get("message"):
            message = self._message(parent_id, int(m["message"]))
            if message.data.get("thread"):
                raise HttpError(400, 160004, "A thread has already been created for this "
                                             "message")
        else:
            message = None
        name = str((body.json or {}).get("name") or "")
        if not 1 <= len(name) <= 100:
            raise HttpError(400, 50035, "Invalid Form Body: name")
        thread_id = message.id if message is not None else snowflake()  # as Discord does
        thread = self._open_thread(
            thread_id, parent_id, name, self.application_id,
            int((body.json or {}).get("auto_archive_duration") or 1440))
        if message is not None:
            message.data["thread"] = thread
        self._changed()
        return thread

    async def _get_channel(self, request: web.Request, m: re.Match[str], body: RequestBody
                           ) -> Any:
        return self._channel(int(m["channel"]))

    def _door_open(self, channel: dict[str, Any]) -> None:
        """A DM to someone who closed their DMs is refused, a new message or an edit of an
        old one alike (the fake assumes the stricter of the two; interaction responses,
        which the person asked for, are not refused)."""
        if channel["type"] == 1:
            recipient = int(channel["recipients"][0]["id"])
            if recipient in self.faults.closed_dms:
                raise HttpError(403, 50007, "Cannot send messages to this user")

    async def _post_message(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        channel_id = int(m["channel"])
        channel = self._channel(channel_id)
        self._door_open(channel)
        payload = body.json or {}
        nonce = payload.get("nonce")
        if nonce is not None and payload.get("enforce_nonce"):
            # Discord answers a repeated nonce (a client's retry) with the message it made
            # the first time, for a few minutes; discord.py sends one with every message
            earlier = self.nonces.get((channel_id, str(nonce)))
            if earlier is not None:
                self.nonce_repeats += 1
                return earlier.data
        message = self.create_message(channel_id, payload, body.files)
        if nonce is not None and payload.get("enforce_nonce"):
            self.nonces[(channel_id, str(nonce))] = message
        return message.data

    async def _list_messages(self, request: web.Request, m: re.Match[str], body: RequestBody
                             ) -> Any:
        channel_id = int(m["channel"])
        self._channel(channel_id)
        limit = int(request.query.get("limit", 50))
        return [x.data for x in reversed(self.visible_messages(channel_id))][:limit]

    async def _get_message(self, request: web.Request, m: re.Match[str], body: RequestBody
                           ) -> Any:
        return self._message(int(m["channel"]), int(m["message"])).data

    async def _edit_message(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        self._door_open(self._channel(int(m["channel"])))
        message = self._message(int(m["channel"]), int(m["message"]))
        return self.edit_message(message, body.json or {}, body.files).data

    async def _delete_message(self, request: web.Request, m: re.Match[str], body: RequestBody
                              ) -> Any:
        message = self._message(int(m["channel"]), int(m["message"]))
        message.deleted = True
        return None

    async def _delete_thread(self, request: web.Request, m: re.Match[str], body: RequestBody
                             ) -> Any:
        """Only threads are deleted here (a bot deleting a server's channel is nothing this
        bot does: refused, as missing the Manage Channels permission would be)."""
        thread_id = int(m["channel"])
        self._channel(thread_id)
        if thread_id not in self.threads:
            raise HttpError(403, 50013, "Missing Permissions")
        payload = self.channels.pop(thread_id)
        del self.threads[thread_id]
        self.channel_messages.pop(thread_id, None)
        guild_id = self.channel_guild.pop(thread_id)
        if self._sessions_for(guild_id):
            self.dispatch("THREAD_DELETE", {"id": str(thread_id), "guild_id": str(guild_id),
                                            "parent_id": payload.get("parent_id"),
                                            "type": payload.get("type")})
        self._changed()
        return payload

    async def _typing(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        self._channel(int(m["channel"]))
        return None

    async def _get_guild(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        guild = self.guilds.get(int(m["guild"]))
        if guild is None:
            raise HttpError(404, 10004, "Unknown Guild")
        return self.guild_payload(guild)

    async def _get_member(self, request: web.Request, m: re.Match[str], body: RequestBody
                          ) -> Any:
        guild = self.guilds.get(int(m["guild"]))
        user_id = int(m["user"])
        if guild is None or user_id not in guild.member_ids:
            raise HttpError(404, 10007, "Unknown Member")
        return member_payload(self.users[user_id])

    # -- interactions
    def start_interaction(self, person: Person, kind: int, data: dict[str, Any], channel_id: int,
                          message: FakeMessage | None = None) -> Interaction:
        """Send INTERACTION_CREATE as Discord would when ``person`` acts in ``channel_id``."""
        interaction_id = snowflake()
        token = "itoken-" + secrets.token_urlsafe(24)
        channel = self._channel(channel_id)
        guild_id = self.channel_guild.get(channel_id)
        payload: dict[str, Any] = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
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
            guild = self.guilds[guild_id]
            perms = self.member_permissions(person.id, guild)
            payload.update({
                "guild_id": str(guild_id),
                "guild_locale": guild.locale,
                "guild": {"id": str(guild_id), "locale": guild.locale, "features": []},
                "member": member_payload(self.users[person.id], permissions=perms),
                "app_permissions": str(ALL_PERMISSIONS),
                "authorizing_integration_owners": {"0": str(guild_id)},
                "context": 0,
            })
        else:
            payload.update({
                "user": self.users[person.id],
                "app_permissions": str(MEMBER_PERMISSIONS),
                "authorizing_integration_owners": {"0": str(self.application_id)},
                "context": 1,
            })
        if message is not None:
            payload["message"] = message.data
        interaction = Interaction(self, interaction_id, token, kind, person.id, channel_id,
                                  guild_id, payload, time.perf_counter(), message=message)
        self.interactions[interaction_id] = interaction
        self.dispatch("INTERACTION_CREATE", payload)
        return interaction

    def open_modal(self, user_id: int) -> FakeModal | None:
        """The modal on ``user_id``'s screen (the newest still open), or None."""
        for modal in reversed(self.modals):
            if modal.user_id == user_id and not modal.closed:
                return modal
        return None

    def _interaction_by_token(self, token: str) -> Interaction:
        for interaction in reversed(self.interactions.values()):
            if interaction.token == token:
                return interaction
        raise HttpError(404, 10015, "Unknown Webhook")

    async def _callback(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        interaction = self.interactions.get(int(m["interaction"]))
        if interaction is None or interaction.token != m["token"]:
            raise HttpError(404, 10062, "Unknown interaction")
        if time.perf_counter() - interaction.sent_at > self.interaction_deadline:
            raise HttpError(404, 10062, "Unknown interaction")
        if interaction.acknowledged:
            raise HttpError(400, 40060, "Interaction has already been acknowledged.")
        kind = int(body.json["type"])
        data = body.json.get("data") or {}
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        visible_to = interaction.user_id if ephemeral else None
        resource: dict[str, Any] = {"type": kind}
        if kind == 4:
            interaction.original = self.create_message(
                interaction.channel_id, data, body.files, webhook=True, visible_to=visible_to,
                interaction_id=interaction.id)
        elif kind == 5:
            interaction.original = self.create_message(
                interaction.channel_id, {"flags": data.get("flags")}, [], webhook=True,
                visible_to=visible_to, flags=LOADING, interaction_id=interaction.id)
        elif kind in (6, 7):
            if interaction.message is None:
                raise HttpError(400, 50035, "Invalid Form Body: not a component interaction")
            interaction.original = interaction.message
            if kind == 7:
                self.edit_message(interaction.message, data, body.files)
        elif kind == 8:
            problem = check_autocomplete_choices(data.get("choices"))
            if problem:
                raise HttpError(400, 50035, f"Invalid Form Body: {problem}")
            interaction.choices = list(data.get("choices") or [])
        elif kind == 9:
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
        elif kind == 12:
            resource = self.activities.launch(interaction)
        else:
            raise HttpError(400, 50035, f"Invalid Form Body: callback type {kind}")
        interaction.callback_type = kind
        interaction.acked_at = time.perf_counter()
        if interaction.original is not None and kind in (4, 5, 7):
            resource["message"] = interaction.original.data
        self._changed()
        return {
            "interaction": {
                "id": str(interaction.id), "type": interaction.type,
                "response_message_id": (str(interaction.original.id)
                                        if interaction.original else None),
                "response_message_loading": kind == 5,
                "response_message_ephemeral": ephemeral,
                **({"activity_instance_id": resource["activity_instance"]["id"]}
                   if kind == 12 else {}),
            },
            "resource": resource,
        }

    async def _followup(self, request: web.Request, m: re.Match[str], body: RequestBody) -> Any:
        interaction = self._interaction_by_token(m["token"])
        if not interaction.acknowledged:
            raise HttpError(404, 10015, "Unknown Webhook")
        payload = body.json or {}
        ephemeral = bool(int(payload.get("flags") or 0) & EPHEMERAL)
        message = self.create_message(
            interaction.channel_id, payload, body.files, webhook=True,
            visible_to=interaction.user_id if ephemeral else None, interaction_id=interaction.id)
        interaction.followups.append(message)
        return message.data

    def _webhook_message(self, m: re.Match[str]) -> tuple[Interaction, FakeMessage]:
        interaction = self._interaction_by_token(m["token"])
        if m["message"] == "@original":
            if interaction.original is None or interaction.original.deleted:
                raise HttpError(404, 10008, "Unknown Message")
            return interaction, interaction.original
        return interaction, self._message(interaction.channel_id, int(m["message"]))

    async def _webhook_get(self, request: web.Request, m: re.Match[str], body: RequestBody
                           ) -> Any:
        return self._webhook_message(m)[1].data

    async def _webhook_edit(self, request: web.Request, m: re.Match[str], body: RequestBody
                            ) -> Any:
        _, message = self._webhook_message(m)
        return self.edit_message(message, body.json or {}, body.files).data

    async def _webhook_delete(self, request: web.Request, m: re.Match[str], body: RequestBody
                              ) -> Any:
        _, message = self._webhook_message(m)
        message.deleted = True
        self._changed()
        return None


def _json_response(status: int, body: Any, headers: dict[str, str] | None = None
                   ) -> web.Response:
    # aiohttp's content_type= adds "; charset=utf-8", and then discord.py reads the body as
    # text rather than JSON: set the header by hand.
    return web.Response(status=status, body=json.dumps(body).encode(),
                        headers={"Content-Type": JSON, **(headers or {})})


def _error(exc: HttpError) -> web.Response:
    return _json_response(exc.status, {"message": exc.message, "code": exc.code})


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
