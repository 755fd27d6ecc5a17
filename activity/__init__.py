"""The Activity: a web page inside Discord where a child taps the board itself.

A second way to sit at the same table, beside the chat (``cogs/``), and like it an
adapter over the same ``GameManager``: every move a page makes is the manager's
``submit``, under the same lock and commit, and the page hears of every change as one more
listener of the manager. Off unless ``ACTIVITY_PORT`` is set (docs/ADMIN.md, "The
Activity").

    app.py         the aiohttp routes: the page, the login, the WebSocket, the pictures
    sessions.py    who is who: a signed, short-lived session once Discord said who
    login.py       what the Activity asks Discord: the code's token, the person, the place
    doors.py       how much a stranger may make it ask: buckets in all, per source, per person
    sockets.py     the sockets held: bounded before their hello, and per person
    refusals.py    every refusal counted by door, and logged once per incident
    hub.py         the manager's listener: each change pushed to the pages on that table
    views.py       what one page may see (its holder's hand only), as JSON
    play.py        what a page may ask, checked and paced, done through the manager
    connection.py  one page's socket and its queue of frames
    looks.py       the board's pictures, served from ``render.looks`` (one source)
    web/           the page itself: src/, built into dist/ (``make activity``)

Imports: ``activity -> (manager, render)``; never ``cogs`` (nor they it), never
``discord``, never ``runtime``: ``bot.py`` hands it what it needs (the REST budget's trace
and its steps, the metrics' ``DoorWatch``, the limits from the settings).
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from aiohttp import web

from manager import GameManager

from .app import DIST, ActivityServer
from .doors import Door, Limits
from .hub import Hub
from .login import DiscordLogin, Urgency
from .looks import warm
from .play import Pace, Play
from .refusals import DoorWatch, Refusals
from .sessions import SESSION_SECONDS, Sessions

__all__ = ["Activity", "ActivityConfig", "DoorWatch", "Limits"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ActivityConfig:
    """What the Activity needs from the bot's settings."""

    port: int  # 0: any free port (said in the log; tests)
    client_secret: str
    bot_token: str
    api_base: str
    host: str = "127.0.0.1"
    session_seconds: float = SESSION_SECONDS
    dist: Path = DIST
    # what a stranger may make it ask of Discord (doors.py)
    limits: Limits = field(default_factory=Limits)


class Activity:
    """The Activity beside one bot: ``attach`` (the manager), ``serve``, ``stop``."""

    def __init__(self, config: ActivityConfig, *,
                 trace: aiohttp.TraceConfig | None = None, urgent: Urgency | None = None,
                 watch: DoorWatch | None = None, pace: Pace | None = None) -> None:
        """``trace`` and ``urgent``: the bot's REST budget (``runtime/budget.py``) and its
        steps, for the one request of the bot's own here (where an Activity runs, at the
        lowest step); ``watch``: told of every refusal at the doors (the bot's metrics);
        ``pace``: each person's messages."""
        self.config = config
        limits = config.limits
        self.refusals = Refusals(watch, quiet=limits.incident_quiet)
        lookups = Door(limits.lookups_per_minute, limits.lookup_burst,
                       limits.person_lookups_per_minute, limits.person_lookup_burst)
        self.login = DiscordLogin(config.api_base, config.bot_token, config.client_secret,
                                  trace=trace, urgent=urgent, lookups=lookups)
        self.sessions = Sessions(config.client_secret, seconds=config.session_seconds)
        self._pace = pace
        self.hub: Hub | None = None
        self.server: ActivityServer | None = None
        self._runner: web.AppRunner | None = None
        self.port = config.port

    def attach(self, manager: GameManager, application_id: int) -> None:
        """Once the manager exists (and the bot knows its application id): the hub
        listens to the manager from now on."""
        self.login.application_id = application_id
        self.hub = hub = Hub(manager)
        play = Play(manager, hub, self._pace)
        self.server = ActivityServer(hub, play, self.sessions, self.login,
                                     dist=self.config.dist, limits=self.config.limits,
                                     refusals=self.refusals)
        manager.add_listener(hub)

    async def serve(self) -> None:
        """Listen; a port that cannot be had is said in one line and the bot plays on
        without the Activity."""
        if self._runner is not None or self.server is None:
            return
        if not (self.config.dist / "index.html").is_file():
            log.error("the Activity's page is not built (%s): run make activity; the bot "
                      "serves a page that says so", self.config.dist)
        runner = web.AppRunner(self.server.application(), access_log=None,
                               handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self.config.host, self.config.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
            log.error("cannot serve the Activity at %s:%d (%s); the bot runs without it",
                      self.config.host, self.config.port, reason)
            return
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        asyncio.get_running_loop().run_in_executor(None, warm)
        log.info("the Activity is served at http://%s:%d/", self.config.host, self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if self.server is not None:
            await self.server.close_sockets()
        if runner is not None:
            await runner.cleanup()
        await self.login.close()
        self.refusals.close()  # (the incidents still going on are summed up)
