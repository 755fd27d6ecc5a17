"""The fake Discord's gateway: the websocket the bot's shards IDENTIFY and RESUME on, and the
events (dispatches) it sends them.

Sharded as Discord shards: one session per shard, a server's events to the shard that owns
it (``World.shard_of``), DM events to shard 0. Each session keeps what it was sent, so a
shard that RESUMEs gets what it missed. A session is sent only the events its IDENTIFY's
intents ask for, shaped as they ask (``intents.py``); it counts the ones held back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from . import intents as gateway_intents
from .payloads import member_payload
from .world import GATEWAY_PATH, World

HEARTBEAT_INTERVAL_MS = 41_250


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
    #: event name -> how many of them its intents held back from this session
    withheld: Counter[str] = field(default_factory=Counter)

    def events(self, *names: str) -> list[dict[str, Any]]:
        """What this session was sent of those events (their ``d``), oldest first."""
        return [frame["d"] for frame in self.sent if frame["t"] in names]


class Gateway:
    """The sessions of the bot's shards, and the events they are sent."""

    def __init__(self, world: World, *, enforce_shards: bool = False) -> None:
        self.world = world
        #: refuse an IDENTIFY whose shard count is not ``shards`` (4011 if fewer, 4010 if more)
        self.enforce_shards = enforce_shards
        self.sessions: dict[int, GatewaySession] = {}  # shard id -> its session
        self.received: list[dict[str, Any]] = []  # every frame the bot sent, in order
        self.identified = 0
        self.resumed = 0
        self._sockets: set[web.WebSocketResponse] = set()

    def serve(self, app: web.Application) -> None:
        """Answer websocket connections on ``GATEWAY_PATH`` of ``app``."""
        app.router.add_get(GATEWAY_PATH, self._connection)

    async def close(self) -> None:
        """Close every connection (as Discord going away does: 1001)."""
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=1001), 1.0)

    # ----------------------------------------------------------------- sessions
    @property
    def session(self) -> GatewaySession | None:
        """Shard 0's session: the only one for a bot that does not shard."""
        return self.sessions.get(0)

    def owners(self, guild_id: int | None) -> list[GatewaySession]:
        """Where Discord sends an event: the owning shard's session; DMs go to shard 0."""
        if guild_id is None:
            return [s for s in self.sessions.values() if s.shard_id == 0]
        return [s for s in self.sessions.values()
                if (guild_id >> 22) % s.shard_count == s.shard_id]

    def connected(self, shard: int | None = None) -> bool:
        """Whether ``shard`` (None: every one of ``shards``) has a live gateway connection."""
        wanted = range(self.world.shards) if shard is None else [shard]
        for shard_id in wanted:
            session = self.sessions.get(shard_id)
            if session is None or session.ws is None or session.ws.closed:
                return False
        return True

    async def wait_until_connected(self, timeout: float = 5.0, *, shard: int | None = None
                                   ) -> None:
        """Wait until ``shard`` (None: every one of ``shards``) is connected."""
        await self.world.wait_for(lambda: self.connected(shard), timeout, "the bot to identify")

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

    # ----------------------------------------------------------------- events
    def announce(self, event: str, data: dict[str, Any], guild_id: int | None, *,
                 live_only: bool = False) -> None:
        """``World.announce``: dispatch if a session owns ``guild_id`` (None: a DM, shard 0;
        ``live_only``: and one of them is connected now), else drop the event, as Discord
        would for no one."""
        owners = self.owners(guild_id)
        if live_only:
            if any(s.ws is not None for s in owners):
                self.dispatch(event, data, guild_id)
        elif owners:
            self.dispatch(event, data, guild_id)

    def dispatch(self, event: str, data: dict[str, Any], guild_id: int | None = None) -> None:
        """Send a gateway event to the shard that owns it (buffered for a resume if away).

        The server is ``guild_id`` or else the event's own ``guild_id``; without one (a DM)
        the event goes to shard 0, as Discord does.
        """
        if guild_id is None and data.get("guild_id") is not None:
            guild_id = int(data["guild_id"])
        sessions = self.owners(guild_id)
        if not sessions:
            shard = 0 if guild_id is None else f"owning server {guild_id}"
            raise RuntimeError(f"the bot has not identified on the gateway yet (shard {shard})")
        for session in sessions:
            self._dispatch_to(session, event, data)

    def _dispatch_to(self, session: GatewaySession, event: str, data: dict[str, Any]) -> None:
        bot_id = self.world.application_id
        if not gateway_intents.allows(session.intents, event, data, bot_id):
            session.withheld[event] += 1
            return
        data = gateway_intents.shaped(session.intents, event, data, bot_id)
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

    # ----------------------------------------------------------------- the websocket
    async def _connection(self, request: web.Request) -> web.WebSocketResponse:
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
                self.received.append(frame)
                await self._on_frame(ws, frame)
        finally:
            self._sockets.discard(ws)
            for session in self.sessions.values():
                if session.ws is ws:
                    session.ws = None
            self.world.changed()
        return ws

    async def _on_frame(self, ws: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        d: Any = frame.get("d")
        if op == 1:  # heartbeat
            await ws.send_str(json.dumps({"op": 11, "d": None, "s": None, "t": None}))
        elif op == 2:  # identify
            await self._identify(ws, d)
        elif op == 6:  # resume
            await self._resume(ws, d)
        elif op == 8:  # request guild members
            guild = self.world.guilds.get(int(d["guild_id"]))
            if guild is not None:
                self.dispatch("GUILD_MEMBERS_CHUNK", {
                    "guild_id": str(guild.id), "chunk_index": 0, "chunk_count": 1,
                    "members": [member_payload(self.world.users[u]) for u in guild.member_ids],
                    "nonce": d.get("nonce"),
                })

    async def _identify(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> None:
        world = self.world
        if d.get("token") != world.token:
            await ws.close(code=4004, message=b"Authentication failed.")
            return
        shard_id, shard_count = (int(x) for x in d.get("shard") or (0, 1))
        if shard_count < 1 or not 0 <= shard_id < shard_count:
            await ws.close(code=4010, message=b"Invalid shard.")
            return
        if self.enforce_shards and shard_count != world.shards:
            if shard_count < world.shards:
                await ws.close(code=4011, message=b"Sharding required.")
            else:
                await ws.close(code=4010, message=b"Invalid shard.")
            return
        session = GatewaySession(secrets.token_hex(16), shard_id, shard_count, ws=ws,
                                 intents=int(d.get("intents", 0)))
        self.sessions[shard_id] = session
        self.identified += 1
        owned = [g for g in world.guilds.values()
                 if world.shard_of(g.id, shard_count) == shard_id]
        self._dispatch_to(session, "READY", {
            "v": 10,
            "user": world.bot_user,
            "guilds": [{"id": str(g.id), "unavailable": True} for g in owned],
            "session_id": session.id,
            "resume_gateway_url": world.gateway_url,
            "application": {"id": str(world.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "user_settings": {},
            "geo_ordered_rtc_regions": [],
            "shard": [shard_id, shard_count],
        })
        for guild in owned:
            self._dispatch_to(session, "GUILD_CREATE", world.guild_payload(guild))
        world.changed()

    async def _resume(self, ws: web.WebSocketResponse, d: dict[str, Any]) -> None:
        session = next((s for s in self.sessions.values() if s.id == d.get("session_id")), None)
        if session is None or d.get("token") != self.world.token:
            await ws.send_str(json.dumps({"op": 9, "d": False, "s": None, "t": None}))
            return
        session.ws = ws
        self.resumed += 1
        for frame_out in session.sent:
            if frame_out["s"] > int(d.get("seq") or 0):
                await self._send(session, ws, frame_out)
        self._dispatch_to(session, "RESUMED", {})
        self.world.changed()
