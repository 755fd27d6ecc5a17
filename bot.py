"""Composition root: settings, logging, the bot, the store and the manager. Nothing else.

    python bot.py          (or: make run)

Settings come from the environment and ``.env`` (see ``.env.example``): ``DISCORD_TOKEN``
(required), ``DATABASE_PATH``, ``DEV_GUILD_ID``, ``LOG_LEVEL``, ``DISCORD_API_BASE`` and
``DISCORD_GATEWAY_URL`` (to reach Discord through a proxy or a test server), and
``COMPUTER_DELAY`` (seconds a computer player waits before moving, so people can follow).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from discord.ext import commands

from cogs.community import Community
from cogs.i18n import Translator
from cogs.sequence import Sequence
from cogs.table import ALL_ITEMS, Desk
from cogs.table.buttons import Clicks
from engine.manager import GameManager
from engine.manager.store import Store

log = logging.getLogger("sequence")

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg"


class SettingsError(ValueError):
    """A setting is missing or malformed; the message says what to do."""


@dataclass(frozen=True)
class Settings:
    token: str
    database_path: Path
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    api_base: str = DEFAULT_API_BASE
    gateway_url: str = DEFAULT_GATEWAY_URL
    computer_delay: float = 1.5

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        token = env.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise SettingsError(
                "DISCORD_TOKEN is not set: copy .env.example to .env and put your bot's token "
                "in it (Discord Developer Portal > your application > Bot > Token).")
        guild = env.get("DEV_GUILD_ID", "").strip()
        if guild and not guild.isdigit():
            raise SettingsError(f"DEV_GUILD_ID must be a server id (digits), not {guild!r}.")
        try:
            delay = float(env.get("COMPUTER_DELAY", "") or 1.5)
        except ValueError as exc:
            raise SettingsError("COMPUTER_DELAY must be a number of seconds.") from exc
        return cls(
            token=token,
            database_path=Path(env.get("DATABASE_PATH", "") or "data/sequence.db"),
            dev_guild_id=int(guild) if guild else None,
            log_level=(env.get("LOG_LEVEL", "") or "INFO").upper(),
            api_base=(env.get("DISCORD_API_BASE", "") or DEFAULT_API_BASE).rstrip("/"),
            gateway_url=env.get("DISCORD_GATEWAY_URL", "") or DEFAULT_GATEWAY_URL,
            computer_delay=delay,
        )

    def __repr__(self) -> str:  # never show the token, even in a traceback
        return (f"Settings(database_path={str(self.database_path)!r}, "
                f"dev_guild_id={self.dev_guild_id}, api_base={self.api_base!r})")


def point_discord_at(api_base: str, gateway_url: str) -> None:
    """Where discord.py sends REST calls and opens the gateway (a proxy, a test server)."""
    discord.http.Route.BASE = api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


class RedactToken(logging.Filter):
    """Replaces the token wherever it would appear in a log line."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if self.token and self.token in record.getMessage():
            record.msg = record.getMessage().replace(self.token, "[token]")
            record.args = None
        return True


def setup_logging(level: str, token: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactToken(token))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level if level in logging.getLevelNamesMapping() else "INFO")


class SequenceBot(commands.Bot):
    """The bot: opens the store, starts the manager, builds the table desk, adds the cogs,
    syncs the commands. Each part is built here, typed, and handed to what uses it."""

    def __init__(self, settings: Settings, **options: Any) -> None:
        options.setdefault("intents", discord.Intents.default())
        super().__init__(command_prefix=commands.when_mentioned, help_command=None, **options)
        self.settings = settings
        self.store: Store | None = None
        self.manager: GameManager | None = None
        self.desk: Desk | None = None

    @property
    def clicks(self) -> Clicks:
        """Where the buttons send their clicks (``cogs.table.buttons.clicks_of``)."""
        if self.desk is None:
            raise RuntimeError("the bot is not set up yet")
        return self.desk.clicks

    async def setup_hook(self) -> None:
        self.store = store = await Store.open(self.settings.database_path)
        self.manager = manager = GameManager(store, computer_delay=self.settings.computer_delay)
        self.desk = desk = Desk(self, manager)
        # the servers' languages and layouts before anything is shown, whatever cog loads
        await desk.prefs.load(store.games, store.layout)
        manager.add_listener(desk)
        self.add_dynamic_items(*ALL_ITEMS)
        # each cog in its own try, so one that fails does not take the bot down (stats and
        # settings join the /sequence group, so they come after it)
        for name, make in (
                ("sequence", lambda: Sequence(self, desk)),
                ("community", lambda: Community(self, manager, desk.prefs, store.standings,
                                                store.layout))):
            try:
                await self.add_cog(make())
            except Exception:
                log.exception("could not add the %s commands; the bot runs without them", name)
        await self.tree.set_translator(Translator())
        # the desk listens before the manager restarts games, so nothing is missed
        await manager.start()
        await self.sync_commands()

    async def sync_commands(self) -> None:
        """Dev server: sync there at once. Otherwise sync globally only when they changed."""
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
            return
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands()]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        marker = self.settings.database_path.with_suffix(".commands")
        if marker.exists() and marker.read_text().strip() == digest:
            return
        await self.tree.sync()
        marker.write_text(digest)

    async def close(self) -> None:
        if self.desk is not None:
            self.desk.close()
        if self.manager is not None:
            await self.manager.close()
            self.manager = None
        await super().close()
        if self.store is not None:
            await self.store.close()
            self.store = None
            log.info("database closed")


async def run(settings: Settings, **options: Any) -> None:
    """Run until SIGINT/SIGTERM (or the connection fails for good), then shut down cleanly."""
    point_discord_at(settings.api_base, settings.gateway_url)
    bot = SequenceBot(settings, **options)
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stopping.set)
    runner = asyncio.create_task(bot.start(settings.token))
    waiter = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        if not bot.is_closed() or bot.store is not None:
            log.info("shutting down")
            await bot.close()
        if runner.done() and not runner.cancelled() and runner.exception() is not None:
            raise runner.exception()  # type: ignore[misc]
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner


def main() -> int:
    with contextlib.suppress(ImportError):
        from dotenv import load_dotenv

        load_dotenv()
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError as exc:
        logging.basicConfig(format="%(levelname)s: %(message)s")
        log.error("%s", exc)
        return 2
    setup_logging(settings.log_level, settings.token)
    try:
        asyncio.run(run(settings))
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
