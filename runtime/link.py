"""The bot's link to Discord: where Discord is, and how to ride out its going away.

discord.py is told where to send REST calls and where the gateway is (a proxy, a test
server: ``DISCORD_API_BASE``, ``DISCORD_GATEWAY_URL``); while Discord cannot be reached the
bot keeps trying with capped waits (``Backoff``) and says so in one line per try
(``ReconnectLine`` replaces discord.py's traceback for each reconnect); a token Discord
refuses ends it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import discord
import discord.client
import discord.gateway
import discord.http
import yarl
from discord.ext import commands

from .commands import AnnouncedTree
from .settings import Settings

log = logging.getLogger("sequence")


def point_discord_at(api_base: str, gateway_url: str) -> None:
    """Where discord.py sends REST calls and opens the gateway (a proxy, a test server)."""
    discord.http.Route.BASE = api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def quiet_voice_warnings() -> None:
    """The bot has no voice features: discord.py's two warnings at client creation that
    voice will not work (no PyNaCl, no davey) only worry an admin. Exactly those two are
    turned off, by the flags discord.py reads before it warns; every other warning stays."""
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False


# What failing to reach Discord looks like, at login and in the REST calls of setup_hook:
# no network, refused or reset connections, timeouts, Discord's own 5xx answers.
NETWORK_ERRORS = (OSError, aiohttp.ClientError, asyncio.TimeoutError, discord.DiscordServerError)


def why_unreachable(exc: BaseException) -> str:
    """One short reason for a log line, instead of a traceback."""
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return f"cannot resolve {exc.host}"
    if isinstance(exc, aiohttp.ClientConnectorError):
        error = exc.os_error
        return (os.strerror(error.errno) if error.errno else str(error)).lower()
    if isinstance(exc, asyncio.TimeoutError):
        return "no answer in time"
    if isinstance(exc, discord.DiscordServerError):
        return f"Discord answered {exc.status}"
    if isinstance(exc, discord.ConnectionClosed):
        return f"the gateway closed the connection (code {exc.code})"
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno).lower()
    return str(exc) or type(exc).__name__


class Backoff:
    """Waits between tries: base, twice that, ... up to ``cap`` (about 30 s, so the bot is
    back within a minute of Discord). No jitter: one bot, and the log says the wait. After a
    quiet spell longer than two caps the next failure starts again from ``base``."""

    def __init__(self, base: float = 1.0, cap: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``clock``: seconds that only go forward (tests move it by hand)."""
        self.base, self.cap = base, cap
        self._clock = clock
        self._next = base
        self._last = float("-inf")

    def delay(self) -> float:
        now = self._clock()
        if now - self._last > 2 * self.cap + self._next:
            self._next = self.base
        self._last = now
        wait, self._next = self._next, min(self.cap, self._next * 2)
        return wait


class ReconnectLine(logging.Filter):
    """discord.py's gateway loop logs each reconnect with a whole traceback; the admin gets
    one line with the reason and the wait instead (its waits come from ``Backoff``)."""

    def __init__(self, gateway_url: str) -> None:
        super().__init__()
        self.gateway_url = gateway_url

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Attempting a reconnect in %.2fs" and record.args:
            exc = record.exc_info[1] if record.exc_info else None
            wait = record.args[0] if isinstance(record.args, tuple) else 0
            record.msg = "lost the connection to Discord at %s (%s); trying again in %s s"
            record.args = (self.gateway_url,
                           why_unreachable(exc) if exc else "unknown reason", f"{wait:g}")
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def pace_reconnects(settings: Settings) -> None:
    """discord.py reconnects the gateway by itself, waiting up to 17 minutes between tries;
    make it wait ``Backoff``'s way instead (capped) and say why in one line."""
    class GatewayBackoff(Backoff):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(settings.reconnect_base_delay, settings.reconnect_max_delay)

    discord.client.ExponentialBackoff = GatewayBackoff  # type: ignore[attr-defined,assignment]
    client_log = logging.getLogger("discord.client")
    for old in [f for f in client_log.filters if isinstance(f, ReconnectLine)]:
        client_log.removeFilter(old)
    client_log.addFilter(ReconnectLine(settings.gateway_url))


async def stay_connected(bot: commands.Bot, settings: Settings) -> None:
    """Log in (trying again while Discord cannot be reached), then hold the gateway.

    A token Discord refuses raises ``discord.LoginFailure`` at once: waiting will not fix it.
    """
    delays = Backoff(settings.reconnect_base_delay, settings.reconnect_max_delay)
    while True:
        try:
            await bot.login(settings.token)
            break
        except NETWORK_ERRORS as exc:
            wait = delays.delay()
            log.warning("cannot reach Discord at %s (%s); trying again in %s s",
                        settings.api_base, why_unreachable(exc), f"{wait:g}")
            # login opened an HTTP session; a fresh one (and connector) for the next try
            await bot.http.close()
            bot.http.connector = discord.utils.MISSING
            await asyncio.sleep(wait)
    tree = bot.tree
    if not settings.runs_shard_zero:
        log.info("commands are synced by the process that runs shard 0, not this one")
    elif isinstance(tree, AnnouncedTree) and not tree.synced:
        log.info("commands unchanged since the last sync, not synced again")
    await bot.connect(reconnect=True)


async def serve(bot: commands.Bot, settings: Settings, still_open: Callable[[], bool]) -> None:
    """Hold the bot on Discord until SIGINT/SIGTERM (or the connection fails for good), then
    close it cleanly (``still_open``: whether anything is left to close)."""
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stopping.set)
    runner = asyncio.create_task(stay_connected(bot, settings))
    waiter = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if still_open():
            log.info("shutting down")
            await bot.close()
        if runner.done() and not runner.cancelled() and runner.exception() is not None:
            raise runner.exception()  # type: ignore[misc]
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
