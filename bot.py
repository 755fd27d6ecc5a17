"""Composition root: settings, logging, the bot, the store and the manager. Nothing else.

    python bot.py          (or: make run)

Settings come from the environment and ``.env`` (see ``.env.example``): ``DISCORD_TOKEN``
(required), ``DATABASE_PATH``, ``DEV_GUILD_ID``, ``LOG_LEVEL``, ``DISCORD_API_BASE`` and
``DISCORD_GATEWAY_URL`` (to reach Discord through a proxy or a test server),
``COMPUTER_DELAY`` (seconds a computer player waits before moving, so people can follow),
``RECONNECT_BASE_DELAY`` / ``RECONNECT_MAX_DELAY`` (the first and the longest wait between
tries while Discord cannot be reached), ``SHARD_COUNT`` / ``SHARD_IDS`` (several processes
sharing the gateway's shards on one PostgreSQL: docs/SCALING.md), and ``SEQUENCE_SEED``
(every game shuffled and rolled from this one seed: for benchmarks that must compare the
same game before and after a change; never for real play).

Start-up tells the admin each stage in one line (docs/ADMIN.md "First start"): commands
synced (where), logged in as whom in how many servers, the invite URL, ready. While Discord
cannot be reached the bot keeps trying, one line per try, as a service should; a token
Discord refuses ends it with status 1, a missing token with status 2.
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
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import discord
import discord.client
import discord.gateway
import discord.http
import yarl
from discord import app_commands
from discord.ext import commands

from cogs.community import Community
from cogs.i18n import Translator
from cogs.sequence import Sequence
from cogs.table import ALL_ITEMS, Desk
from cogs.table.buttons import Clicks
from cogs.table.pace import ChannelPace
from engine.manager import GameManager
from engine.manager.store import SchemaTooNew, Store, open_store
from engine.manager.store.postgres import redacted

log = logging.getLogger("sequence")

COMMANDS_DIGEST = "commands_digest"  # the bot fact: what the last global sync sent
PREFERENCES_EVERY = 10.0  # seconds: several processes read the servers' preferences again
DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_DATABASE_PATH = Path("data/sequence.db")
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
    reconnect_base_delay: float = 1.0
    reconnect_max_delay: float = 30.0
    # postgresql://user@host:port/dbname: PostgreSQL instead of the SQLite file (several
    # processes can share it); when set it wins over database_path
    database_url: str | None = None
    # messages the bot posts in one channel in any 5 s at most (Discord allows about 5);
    # 0: no pace of its own (a test server without Discord's limits)
    channel_pace: int = 5
    # Discord's sharding: how many shards the bot has in all, and which of them this process
    # runs (None: all of them). Both None: one unsharded connection, as a small bot has.
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    # every game's seed (None: a new random one each game, as real play needs)
    game_seed: int | None = None

    @property
    def sharded(self) -> bool:
        return self.shard_count is not None

    @property
    def runs_shard_zero(self) -> bool:
        """Shard 0 gets every DM; its process is also the one that syncs the commands."""
        return self.shard_ids is None or 0 in self.shard_ids

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
        delay = _seconds(env, "COMPUTER_DELAY", 1.5)
        base = _seconds(env, "RECONNECT_BASE_DELAY", 1.0)
        cap = _seconds(env, "RECONNECT_MAX_DELAY", 30.0)
        if base <= 0 or cap < base:
            raise SettingsError("RECONNECT_BASE_DELAY must be above 0 and at most "
                                "RECONNECT_MAX_DELAY.")
        return cls(
            token=token,
            database_path=cls.database_path_from(env),
            dev_guild_id=int(guild) if guild else None,
            log_level=(env.get("LOG_LEVEL", "") or "INFO").upper(),
            api_base=(env.get("DISCORD_API_BASE", "") or DEFAULT_API_BASE).rstrip("/"),
            gateway_url=env.get("DISCORD_GATEWAY_URL", "") or DEFAULT_GATEWAY_URL,
            computer_delay=delay,
            reconnect_base_delay=base,
            reconnect_max_delay=cap,
            database_url=cls.database_url_from(env),
            channel_pace=_count(env, "CHANNEL_PACE", 5),
            game_seed=(_count(env, "SEQUENCE_SEED", 0) if env.get("SEQUENCE_SEED", "").strip()
                       else None),
            **cls.shards_from(env),
        )

    @staticmethod
    def shards_from(env: Mapping[str, str]) -> dict[str, Any]:
        """``SHARD_COUNT`` (the bot's shards in all) and ``SHARD_IDS`` (``0,1``: the ones
        this process runs; empty: all of them)."""
        count_text = env.get("SHARD_COUNT", "").strip()
        ids_text = env.get("SHARD_IDS", "").strip()
        if not count_text:
            if ids_text:
                raise SettingsError("SHARD_IDS needs SHARD_COUNT (the bot's shards in all, "
                                    "e.g. SHARD_COUNT=2 SHARD_IDS=0).")
            return {}
        if not count_text.isdigit() or int(count_text) < 1:
            raise SettingsError(f"SHARD_COUNT must be a whole number of shards, at least 1, "
                                f"not {count_text!r}.")
        count = int(count_text)
        if not ids_text:
            return {"shard_count": count}
        parts = [p.strip() for p in ids_text.split(",")]
        if not all(p.isdigit() for p in parts):
            raise SettingsError(f"SHARD_IDS must be shard numbers separated by commas, such "
                                f"as 0,1, not {ids_text!r}.")
        ids = [int(p) for p in parts]
        if len(set(ids)) != len(ids) or any(i >= count for i in ids):
            raise SettingsError(f"SHARD_IDS must name different shards from 0 to "
                                f"{count - 1} (SHARD_COUNT is {count}), not {ids_text!r}.")
        return {"shard_count": count, "shard_ids": tuple(sorted(ids))}

    @staticmethod
    def database_url_from(env: Mapping[str, str]) -> str | None:
        url = env.get("DATABASE_URL", "").strip()
        if not url:
            return None
        if not url.startswith(("postgresql://", "postgres://")):
            raise SettingsError("DATABASE_URL must be a PostgreSQL address such as "
                                "postgresql://user@host:5432/dbname (or leave it empty for "
                                "the SQLite file at DATABASE_PATH).")
        return url

    @staticmethod
    def database_path_from(env: Mapping[str, str]) -> Path:
        """Where the database is: for the bot and for tools that need no token (backups)."""
        return Path(env.get("DATABASE_PATH", "") or DEFAULT_DATABASE_PATH)

    def __repr__(self) -> str:  # never show the token (or a password), even in a traceback
        where = redacted(self.database_url) if self.database_url else str(self.database_path)
        shards = (f", shards={list(self.shard_ids) if self.shard_ids else 'all'}"
                  f" of {self.shard_count}" if self.sharded else "")
        return (f"Settings(database={where!r}, "
                f"dev_guild_id={self.dev_guild_id}, api_base={self.api_base!r}{shards})")


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    try:
        value = float(env.get(name, "") or default)
    except ValueError as exc:
        raise SettingsError(f"{name} must be a number of seconds.") from exc
    if value < 0:
        raise SettingsError(f"{name} must not be negative.")
    return value


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    text = (env.get(name, "") or str(default)).strip()
    if not text.isdigit():
        raise SettingsError(f"{name} must be a whole number, 0 or more (not {text!r}).")
    return int(text)


def point_discord_at(api_base: str, gateway_url: str) -> None:
    """Where discord.py sends REST calls and opens the gateway (a proxy, a test server)."""
    discord.http.Route.BASE = api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def bot_permissions() -> discord.Permissions:
    """Exactly what the bot does in a server's channels (docs/ADMIN.md says why, one by one)."""
    return discord.Permissions(
        view_channel=True,  # see the channel it plays in (and so its history)
        send_messages=True,  # lobbies, turns, the end of a game
        embed_links=True,  # rules, stats and leaderboards are embeds
        attach_files=True,  # the board picture after every move
        read_message_history=True,  # after a restart: what already reached the channel
        create_public_threads=True,  # a thread per game, if the server asks for it
        send_messages_in_threads=True,  # ... and playing in it
    )


def invite_url(application_id: int) -> str:
    """The OAuth2 link that adds the bot (and its slash commands) to a server."""
    return discord.utils.oauth_url(application_id, permissions=bot_permissions(),
                                   scopes=("bot", "applications.commands"))


def quiet_voice_warnings() -> None:
    """The bot has no voice features: discord.py's two warnings at client creation that
    voice will not work (no PyNaCl, no davey) only worry an admin. Exactly those two are
    turned off, by the flags discord.py reads before it warns; every other warning stays."""
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False


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
        self._invited = False  # the invite link is logged at the first ready only
        self._following: asyncio.Task[None] | None = None
        # the handlers of clicks and commands under way (``cogs.table.replies.refusals``
        # adds and removes them): a clean stop lets them finish first
        self.in_flight: set[asyncio.Task[Any]] = set()

    @property
    def clicks(self) -> Clicks:
        """Where the buttons send their clicks (``cogs.table.buttons.clicks_of``)."""
        if self.desk is None:
            raise RuntimeError("the bot is not set up yet")
        return self.desk.clicks

    async def setup_hook(self) -> None:
        if self.desk is not None:
            # discord.py runs setup_hook inside every login: a login tried again after the
            # setup began (Discord went away during the command sync, the one step here
            # that talks to Discord) only syncs again; nothing is opened twice
            await self.sync_commands()
            return
        url = self.settings.database_url
        self.store = store = await open_store(url, self.settings.database_path)
        log.info("database opened: %s (schema version %d)",
                 redacted(url) if url else self.settings.database_path, store.schema_version)
        seed = self.settings.game_seed
        self.manager = manager = GameManager(
            store, computer_delay=self.settings.computer_delay,
            seed_source=None if seed is None else (lambda: seed))
        self.desk = desk = Desk(self, manager, posted=store.posted,
                                pace=ChannelPace(messages=self.settings.channel_pace))
        # the servers' languages and layouts before anything is shown, whatever cog loads
        await desk.prefs.load(store.games, store.layout)
        if store.backend == "postgres":
            # other processes may change them (/sequence settings in a server of theirs)
            self._following = asyncio.create_task(self._follow_preferences(store),
                                                  name="follow-preferences")
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

    async def _follow_preferences(self, store: Store) -> None:
        """Several processes on one PostgreSQL: read the servers' preferences again every
        ``PREFERENCES_EVERY`` seconds, so a setting changed through another process shows
        here within that time (one process sees its own changes at once)."""
        assert self.desk is not None
        while True:
            await asyncio.sleep(PREFERENCES_EVERY)
            try:
                await self.desk.prefs.load(store.games, store.layout)
            except Exception:
                log.warning("could not read the servers' preferences again", exc_info=True)

    async def on_ready(self) -> None:
        """Logged in as whom, in how many servers, the invite link (once), ready."""
        user = self.user
        if user is None:
            return
        servers = len(self.guilds)
        log.info("logged in as %s (id %d) in %d server%s", user, user.id, servers,
                 "" if servers == 1 else "s")
        if not self._invited:
            self._invited = True
            log.info("invite it to a server: %s", invite_url(self.application_id or user.id))
        log.info("ready")

    async def sync_commands(self) -> None:
        """Dev server: sync there at once. Otherwise sync globally only when they changed.

        With several processes only the one that runs shard 0 syncs (exactly one does:
        Discord lets one session hold a shard), so processes starting together never race
        to sync; the others find the digest it saved."""
        if not self.settings.runs_shard_zero:
            return
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
            return
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands()]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        # kept in the database, so processes sharing one sync once, not each at its start
        assert self.store is not None
        if await self.store.games.bot_fact(COMMANDS_DIGEST) == digest:
            return
        await self.tree.sync()
        await self.store.games.save_bot_fact(COMMANDS_DIGEST, digest, now=time.time())

    async def close(self) -> None:
        # A click that made a move is still posting its board and answering the player:
        # let it finish (a little while at most) before the connections it needs close,
        # so a stop never cuts an answer in half.
        busy = {t for t in self.in_flight if not t.done() and t is not asyncio.current_task()}
        if busy:
            log.info("stopping: waiting for %d click(s) under way", len(busy))
            await asyncio.wait(busy, timeout=DRAIN_SECONDS)
        if self._following is not None:
            self._following.cancel()
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


DRAIN_SECONDS = 5.0  # how long a stop waits for the clicks under way (then cuts them)


class ShardedSequenceBot(SequenceBot, commands.AutoShardedBot):
    """The same bot as ``AutoShardedBot``: ``SHARD_COUNT`` shards in all, this process
    running ``SHARD_IDS`` (all of them when unset). Everything else is ``SequenceBot``'s
    (its setup_hook, desk, typed parts); the MRO puts the sharded client under it."""

    def __init__(self, settings: Settings, **options: Any) -> None:
        options.setdefault("shard_count", settings.shard_count)
        if settings.shard_ids is not None:
            options.setdefault("shard_ids", list(settings.shard_ids))
        super().__init__(settings, **options)


def bot_class(settings: Settings) -> type[SequenceBot]:
    """``ShardedSequenceBot`` when the settings name shards, else ``SequenceBot``."""
    return ShardedSequenceBot if settings.sharded else SequenceBot


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

    def __init__(self, base: float = 1.0, cap: float = 30.0) -> None:
        self.base, self.cap = base, cap
        self._next = base
        self._last = float("-inf")

    def delay(self) -> float:
        now = time.monotonic()
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


class AnnouncedTree(app_commands.CommandTree):
    """The command tree that says where the commands were synced (a start-up line)."""

    synced = False

    async def sync(self, *, guild: discord.abc.Snowflake | None = None
                   ) -> list[app_commands.AppCommand]:
        commands_ = await super().sync(guild=guild)
        self.synced = True
        count = f"{len(commands_)} command{'' if len(commands_) == 1 else 's'}"
        if guild is not None:
            log.info("commands synced to the dev server %d (%s)", guild.id, count)
        else:
            log.info("commands synced globally (%s; Discord may take up to an hour to show "
                     "a change everywhere)", count)
        return commands_


async def stay_connected(bot: SequenceBot, settings: Settings) -> None:
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


async def run(settings: Settings, **options: Any) -> None:
    """Run until SIGINT/SIGTERM (or the connection fails for good), then shut down cleanly."""
    point_discord_at(settings.api_base, settings.gateway_url)
    quiet_voice_warnings()
    pace_reconnects(settings)
    options.setdefault("tree_cls", AnnouncedTree)
    bot = bot_class(settings)(settings, **options)
    if settings.sharded:
        log.info("running shard%s %s of %d", "" if len(settings.shard_ids or ()) == 1 else "s",
                 ",".join(map(str, settings.shard_ids)) if settings.shard_ids else "all",
                 settings.shard_count)
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
    except SchemaTooNew as exc:
        log.error("%s", exc)  # never touched: upgrade the bot, or restore a backup
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
