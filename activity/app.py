"""The Activity's web server (aiohttp, which comes with discord.py): the page, the login,
the WebSocket, the pictures.

Paths follow Discord's proxy: a page inside Discord reaches this server only through
``https://<app id>.discordsays.com``, the root URL mapping, and asks for everything under
``/.proxy/``; nothing comes from another origin. Each route answers with and without the
``/.proxy`` prefix, so the same page also runs in a plain browser pointed straight at this
server (the SDK's mock mode: the tests, a developer).

    GET  /                  the page (``web/dist/index.html``, with the application id)
    GET  /.proxy/app.js     the bundle, and app.css
    GET  /.proxy/looks/...  the board's pictures (``looks.py``)
    POST /.proxy/api/token  {"code"} -> {"access_token", "session"}: who the player is
    GET  /.proxy/ws         the WebSocket: {"t": "hello", "session", "instance"} first

The client secret is used here only, to trade a code for a token; no response carries it.

The doors (``doors.py``, ``sockets.py``): a login is refused (429, ``Retry-After``, and
nothing sent to Discord) past its buckets, in all and per source, or while Discord's own
429 says to wait; a code that is not one of Discord's shape (letters and digits, at most
``MAX_CODE``) is refused (400) before anything is asked. A hello's place is bounded per
person and in total (``login.DiscordLogin``). Sockets are bounded before their hello and
per person. Every refusal is counted by door and logged once per incident
(``refusals.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from render.words import catalogue, lang_of, t

from .connection import GOING_AWAY, Connection
from .cycles import no_transport_cycle, unhook_heartbeat
from .doors import Door, Limits, Sources, reason, retry_after
from .hub import Hub, frame_of
from .login import Busy, DiscordAway, DiscordLogin, LoginRefused
from .looks import ROUTES, palette_json
from .play import BadMessage, Play, parse
from .refusals import Refusals
from .sessions import BadSession, Sessions
from .sockets import Sockets

log = logging.getLogger(__name__)

WEB_DIR = Path(__file__).resolve().parent / "web"
DIST = WEB_DIR / "dist"
MAX_FRAME = 4096
#: Discord's authorization codes are 30 letters and digits; twice that, and nothing else
MAX_CODE = 64
CODE = re.compile(rf"[A-Za-z0-9]{{1,{MAX_CODE}}}")
LOGIN_REFUSED = 4001  # (WebSocket close codes of our own: the page logs in again)
NOT_HERE = 4003  # (Discord does not place it here: the page stops)
ELSEWHERE = 4009  # (its person opened too many: the page stops, saying why)
TRY_AGAIN_LATER = 1013  # (the server is busy: the page tries again a moment later)
# Discord's own pages may frame it; so may this server's (a developer's plain browser)
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; font-src 'self'; "
       "frame-ancestors 'self' https://discord.com https://*.discord.com "
       "https://*.discordsays.com https://ptb.discord.com https://canary.discord.com")
NO_STORE = {"Cache-Control": "no-store", "Content-Security-Policy": CSP}
STATIC = {"app.js": "text/javascript", "app.css": "text/css"}
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class ActivityServer:
    """The routes, over the hub (pages), play (their messages), sessions and the login."""

    def __init__(self, hub: Hub, play: Play, sessions: Sessions, login: DiscordLogin, *,
                 dist: Path = DIST, limits: Limits | None = None,
                 refusals: Refusals | None = None) -> None:
        self._hub = hub
        self._play = play
        self._sessions = sessions
        self._login = login
        self._dist = dist
        limits = limits or Limits()
        self._logins = Door(limits.logins_per_minute, limits.login_burst,
                            limits.source_logins_per_minute, limits.source_login_burst)
        self._sources = Sources(limits.trusted_proxies, limits.client_ip_header)
        self._doors = Sockets(limits.silent_sockets, limits.sockets_per_person,
                              grace=limits.silent_grace)
        self.refusals = refusals or Refusals()
        self._hello_within = limits.hello_seconds
        self._sockets: set[web.WebSocketResponse] = set()
        self.logins = 0  # sessions issued (tests, the bench)

    def application(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024, middlewares=[no_transport_cycle])

        def both(method: str, path: str, handler: Handler) -> None:
            app.router.add_route(method, path, handler)
            app.router.add_route(method, "/.proxy" + path, handler)

        both("GET", "/", self._page)
        both("GET", "/index.html", self._page)
        for name in STATIC:
            both("GET", f"/{name}", self._static)
        for path, looks_handler in ROUTES:
            both("GET", path, looks_handler)  # type: ignore[arg-type]
        both("POST", "/api/token", self._token)
        both("GET", "/ws", self._socket)
        return app

    # -- the page ------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.Response:
        index = self._dist / "index.html"
        try:
            html = await asyncio.to_thread(index.read_text, encoding="utf-8")
        except OSError:
            log.error("the Activity's page is not built (%s is missing): run make activity",
                      index)
            return web.Response(status=503, text="The Activity's page is not built yet.\n",
                                headers=NO_STORE)
        html = (html.replace("__CLIENT_ID__", str(self._login.application_id or ""))
                    .replace("__LOOKS__", palette_json())
                    .replace("__PRELOADS__", self._preloads(request)))
        return web.Response(text=html, content_type="text/html", headers=NO_STORE)

    def _preloads(self, request: web.Request) -> str:
        """The pictures of the table in the page's channel (Discord puts ``channel_id`` in
        the Activity's address), asked for while the script loads and the player logs in:
        the first board is drawn the moment its frame comes. Only public pictures: the
        channel named here chooses nothing else."""
        channel = request.query.get("channel_id", "")
        lang = lang_of(request.headers.get("Accept-Language"))
        pictures = self._hub.pictures_for(int(channel), lang) if channel.isdigit() else []
        return "".join(f'<link rel="preload" href="/.proxy{p}" as="image">\n'
                       for p in pictures)

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.path.rsplit("/", 1)[-1]
        path = self._dist / name
        if name not in STATIC or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-cache",
                                               "Content-Type": STATIC[name]})

    # -- who the player is ---------------------------------------------------------------

    async def _token(self, request: web.Request) -> web.Response:
        """The page's authorization code -> its access token (for ``authenticate``) and a
        session of ours, once Discord said whose it is."""
        try:
            body = await request.json()
            code = body["code"] if isinstance(body, dict) else None
        except (ValueError, KeyError):
            code = None
        if not isinstance(code, str) or not CODE.fullmatch(code):
            self.refusals.refused("login", "not a code", level=logging.INFO)
            return web.json_response({"error": "bad_code"}, status=400)
        lang = lang_of(request.headers.get("Accept-Language"))
        source = self._sources.of(request)
        wait, why = self._logins.let_in(source)
        if wait:
            self.refusals.refused("login", *reason(why, f"from {source}"))
            return _busy(wait, lang)
        try:
            token = await self._login.exchange(code)
            person = await self._login.who(token)
        except Busy as exc:  # (Discord's 429: nothing more goes until it said)
            self._logins.shut_for(exc.retry_after)
            self.refusals.refused("login", exc.why)
            return _busy(exc.retry_after, lang)
        except LoginRefused as exc:
            self.refusals.refused("login", f"Discord did not take it ({exc.code})",
                                  level=logging.INFO)
            return web.json_response({"error": exc.code}, status=401)
        except DiscordAway as exc:
            log.info("an Activity login could not reach Discord (%s)", exc)
            return web.json_response({"error": "discord_away"}, status=503)
        self.logins += 1
        session = self._sessions.issue(person.user_id, person.name, lang_of(person.locale))
        return web.json_response({"access_token": token, "session": session,
                                  "user": {"id": str(person.user_id), "name": person.name}},
                                 headers={"Cache-Control": "no-store"})

    # -- the socket ----------------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_FRAME)
        allowed, made_room = self._doors.arrive(ws)
        if made_room:
            self.refusals.refused("socket", "too many open without a hello: the oldest "
                                  "closed")
        if not allowed:  # (before the upgrade: a page tries again a moment later)
            self.refusals.refused("socket", "too many open without a hello")
            return web.Response(status=503, text="busy\n", headers={"Retry-After": "1"})
        try:
            await ws.prepare(request)
            self._sockets.add(ws)
            connection = await self._hello(ws)
            if connection is not None:
                await self._serve(ws, connection)
        finally:
            self._doors.spoke(ws)
            if not ws.closed:
                await ws.close()
            unhook_heartbeat(request, ws)
            self._sockets.discard(ws)
        return ws

    def open_sockets(self) -> int:
        """Sockets open, or still closing (tests, the bench)."""
        return len(self._sockets)

    async def _hello(self, ws: web.WebSocketResponse) -> Connection | None:
        """The first message says who (the session) and where (the instance); Discord
        confirms where, and that the person is in it."""
        try:
            message = await ws.receive(timeout=self._hello_within)
        except TimeoutError:
            self.refusals.refused("hello", f"no hello within {self._hello_within:g} s",
                                  level=logging.INFO)
            return None
        self._doors.spoke(ws)
        if message.type != WSMsgType.TEXT:
            if message.type not in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED):
                self.refusals.refused("hello", "not a hello", level=logging.INFO)
            return None
        try:
            hello = parse(message.data)
            session = self._sessions.check(hello.get("session"))
        except (BadSession, BadMessage, ValueError) as exc:
            why = f"a bad session ({exc})" if isinstance(exc, BadSession) else "not a hello"
            self.refusals.refused("hello", why, level=logging.INFO)
            await ws.send_str(frame_of("refused", code="login", text=""))
            await ws.close(code=LOGIN_REFUSED)  # (the page logs in again)
            return None
        who = f"for user {session.user_id}"
        try:
            instance = hello.get("instance")
            if not isinstance(instance, str):
                raise LoginRefused("no_activity", "no instance")
            place = await self._login.place(instance, session.user_id)
        except Busy as exc:
            self.refusals.refused("instance", exc.why, exc.who)
            await ws.send_str(frame_of("refused", code="busy",
                                       text=t("activity.busy", session.lang)))
            await ws.close(code=TRY_AGAIN_LATER)
            return None
        except LoginRefused as exc:
            # Discord knows this person, but does not place them in an Activity of this
            # bot's here: logging in again would not change that, so the page says so in
            # their language and stops (it does not keep trying)
            self.refusals.refused("instance", PLACE_REFUSED.get(exc.code, exc.code), who,
                                  level=logging.INFO)
            await ws.send_str(frame_of("refused", code="not_here",
                                       text=t("activity.not_here", session.lang)))
            await ws.close(code=NOT_HERE)
            return None
        except DiscordAway as exc:
            log.info("a page could not be placed: Discord away (%s)", exc)
            await ws.close(code=GOING_AWAY)  # (it tries again)
            return None
        connection = Connection(ws, session, place)
        connection.start()
        connection.push(frame_of(
            "welcome", user={"id": str(session.user_id), "name": session.name},
            lang=session.lang, words=_words(session.lang),
            # a fresh session: a long game keeps going, an old copy runs out
            session=self._sessions.issue(session.user_id, session.name, session.lang)))
        self._let_go_past(connection)
        last = hello.get("game")
        await self._hub.open(connection, last_game=last if isinstance(last, int) else None)
        return connection

    def _let_go_past(self, connection: Connection) -> None:
        """Its person holds more sockets than they may: the one heard from least lately is
        told why and closed (``sockets.py``)."""
        quietest = self._doors.placed(connection)
        if isinstance(quietest, Connection):
            self.refusals.refused("socket", f"more than {self._doors.per_person} open",
                                  f"for user {connection.user_id}", level=logging.INFO)
            quietest.let_go(frame_of("refused", code="elsewhere",
                                     text=t("activity.elsewhere", quietest.lang)), ELSEWHERE)

    async def _serve(self, ws: web.WebSocketResponse, connection: Connection) -> None:
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    connection.heard = time.monotonic()
                    await self._play.handle(connection, message.data)
                elif message.type == WSMsgType.ERROR:
                    break
        finally:
            self._doors.gone(connection)
            self._hub.close(connection)
            await connection.stop()

    async def close_sockets(self) -> None:
        """At a stop: every page is told the server goes away (and reconnects)."""
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=GOING_AWAY), 1.0)


#: a place refused, in the log's words
PLACE_REFUSED = {"no_activity": "an instance Discord does not know",
                 "not_in_activity": "an instance that does not list its person"}


def _busy(wait: float, lang: str) -> web.Response:
    """A 429 that says when to try again (the same code: Discord was not asked)."""
    after = retry_after(wait)
    return web.json_response({"error": "busy", "text": t("activity.busy", lang),
                              "retry_after": after}, status=429,
                             headers={"Retry-After": str(after), "Cache-Control": "no-store"})


def _words(lang: str) -> dict[str, Any]:
    """The words a page shows, in its language (the game names, and every
    ``activity.*`` text)."""
    words = catalogue(lang)
    return {k: v for k, v in words.items()
            if k.startswith("activity.") or k in ("game.kids", "game.dice")}
