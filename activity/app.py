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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from render.words import catalogue, lang_of, t

from .connection import GOING_AWAY, Connection
from .hub import Hub, frame_of
from .login import DiscordAway, DiscordLogin, LoginRefused
from .looks import ROUTES, palette_json
from .play import Play, parse
from .sessions import BadSession, Sessions

log = logging.getLogger(__name__)

WEB_DIR = Path(__file__).resolve().parent / "web"
DIST = WEB_DIR / "dist"
HELLO_WITHIN = 10.0  # seconds a new socket has to say who it is
MAX_FRAME = 4096
LOGIN_REFUSED = 4001  # (WebSocket close codes of our own: the page logs in again)
NOT_HERE = 4003
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
                 dist: Path = DIST) -> None:
        self._hub = hub
        self._play = play
        self._sessions = sessions
        self._login = login
        self._dist = dist
        self._sockets: set[web.WebSocketResponse] = set()
        self.logins = 0  # sessions issued (tests, the bench)

    def application(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024)

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
        if not isinstance(code, str) or not 0 < len(code) <= 256:
            return web.json_response({"error": "bad_request"}, status=400)
        try:
            token = await self._login.exchange(code)
            person = await self._login.who(token)
        except LoginRefused as exc:
            log.info("an Activity login was refused by Discord (%s)", exc.code)
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

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=MAX_FRAME)
        await ws.prepare(request)
        self._sockets.add(ws)
        try:
            connection = await self._hello(ws)
            if connection is not None:
                await self._serve(ws, connection)
        finally:
            self._sockets.discard(ws)
            if not ws.closed:
                await ws.close()
        return ws

    async def _hello(self, ws: web.WebSocketResponse) -> Connection | None:
        """The first message says who (the session) and where (the instance); Discord
        confirms where, and that the person is in it."""
        try:
            message = await ws.receive(timeout=HELLO_WITHIN)
        except TimeoutError:
            return None
        if message.type != WSMsgType.TEXT:
            return None
        try:
            hello = parse(message.data)
            session = self._sessions.check(hello.get("session"))
        except (BadSession, ValueError) as exc:
            log.info("a page was refused at hello (%s)", exc)
            await ws.send_str(frame_of("refused", code="login", text=""))
            await ws.close(code=LOGIN_REFUSED)  # (the page logs in again)
            return None
        try:
            instance = hello.get("instance")
            if not isinstance(instance, str) or not 0 < len(instance) <= 128:
                raise LoginRefused("no_activity", "no instance")
            place = await self._login.place(instance, session.user_id)
        except LoginRefused as exc:
            # Discord knows this person, but does not place them in an Activity of this
            # bot's here: logging in again would not change that, so the page says so in
            # their language and stops (it does not keep trying)
            log.info("a page was refused at hello (%s)", exc)
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
        last = hello.get("game")
        await self._hub.open(connection, last_game=last if isinstance(last, int) else None)
        return connection

    async def _serve(self, ws: web.WebSocketResponse, connection: Connection) -> None:
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await self._play.handle(connection, message.data)
                elif message.type == WSMsgType.ERROR:
                    break
        finally:
            self._hub.close(connection)
            await connection.stop()

    async def close_sockets(self) -> None:
        """At a stop: every page is told the server goes away (and reconnects)."""
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(code=GOING_AWAY), 1.0)


def _words(lang: str) -> dict[str, Any]:
    """The words a page shows, in its language (the game names, and every
    ``activity.*`` text)."""
    words = catalogue(lang)
    return {k: v for k, v in words.items()
            if k.startswith("activity.") or k in ("game.kids", "game.dice")}
