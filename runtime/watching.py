"""The bot seen from outside: ``/metrics`` and ``/healthz``, off unless ``METRICS_PORT``.

One small aiohttp server on the bot's own event loop (aiohttp comes with discord.py),
bound to ``METRICS_HOST`` (127.0.0.1 unless told otherwise: metrics are for this machine
or a scraper the admin points at it, never the internet), started at the first login so
a supervisor hears from the bot while it is still reaching Discord, and stopped first at
shutdown.

- ``GET /metrics``: prometheus-client's exposition of this bot's registry
  (``runtime/metrics.py``), in the text format (or OpenMetrics, if the scraper asks);
- ``GET /healthz``: ``200 ok`` or ``503`` and the problem in one line
  (``runtime/health.py``).

``Watching`` is the one object the composition root deals with: it owns the metrics, the
health checks and the server, adds its callbacks to the bot's ``http_trace``
(``trace_into``), and is the Discord side's ``Watch`` (``board_shown``) and the Activity's
``DoorWatch`` (``door_refused``).
"""

from __future__ import annotations

import logging
import os

import aiohttp
import discord
from aiohttp import web
from prometheus_client.aiohttp import make_aiohttp_handler

from manager import Event, GameManager
from store import Store

from .health import TIMEOUT, Health
from .metrics import Metrics, shards_of
from .settings import Settings
from .traffic import RestTraffic

log = logging.getLogger("sequence")


class Watching:
    """``/metrics`` and ``/healthz`` of one bot; ``serve()`` then ``stop()``."""

    def __init__(self, bot: discord.Client, settings: Settings, *,
                 health_timeout: float = TIMEOUT) -> None:
        self.host = settings.metrics_host
        self.port = settings.metrics_port or 0
        self.metrics = metrics = Metrics()
        shard_ids = (list(settings.shard_ids) if settings.shard_ids is not None
                     else list(range(settings.shard_count or 1)))
        metrics.follow_shards(lambda: shards_of(bot, shard_ids))
        self._store: Store | None = None
        self.health = Health(bot, shard_ids, lambda: self._store, timeout=health_timeout)
        self._traffic = RestTraffic(metrics, settings.api_base)
        self._errors = metrics.counting_errors()
        self._runner: web.AppRunner | None = None

    def trace_into(self, config: aiohttp.TraceConfig) -> aiohttp.TraceConfig:
        """Add the REST metrics' callbacks to ``config`` (discord.py's ``http_trace``,
        which may carry others' too) and return it."""
        return self._traffic.trace_into(config)

    def attach(self, manager: GameManager, store: Store) -> None:
        """Once the store and the manager exist: count their work, ask the store's
        health."""
        self.metrics.follow(manager)
        store.watch(self.metrics)
        self._store = store

    def board_shown(self, event: Event) -> None:
        """The Discord side's ``Watch`` (``cogs/table/watch.py``)."""
        self.metrics.board_shown(event)

    def door_refused(self, door: str) -> None:
        """The Activity's ``DoorWatch`` (``activity/refusals.py``)."""
        self.metrics.door_refused(door)

    async def serve(self) -> None:
        """Listen (again, if it could not before); a port that cannot be had is said in one
        line and the bot plays on without metrics."""
        if self._runner is not None:
            return
        app = web.Application()
        app.router.add_get("/metrics", make_aiohttp_handler(self.metrics.registry))
        app.router.add_get("/healthz", self._healthz)
        runner = web.AppRunner(app, access_log=None, handle_signals=False,
                               shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
            log.error("cannot serve metrics and health at %s (%s); the bot runs without "
                      "them", self.url, reason)
            return
        self._runner = runner
        self.port = int(runner.addresses[0][1])  # (METRICS_PORT=0: the port it got)
        logging.getLogger().addHandler(self._errors)
        log.info("metrics and health at %s/metrics and %s/healthz", self.url, self.url)

    @property
    def url(self) -> str:
        """Where the server is (after ``serve``): ``http://host:port``."""
        host = self.host if ":" not in self.host else f"[{self.host}]"
        return f"http://{host}:{self.port}"

    async def stop(self) -> None:
        logging.getLogger().removeHandler(self._errors)
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        await self.health.close()

    async def _healthz(self, request: web.Request) -> web.Response:
        problem = await self.health.problem()
        if problem is None:
            return web.Response(text="ok\n")
        return web.Response(status=503, text=problem + "\n")
