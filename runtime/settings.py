"""The bot's settings, from the environment and ``.env`` (see ``.env.example``).

Standard library only (and the store's password redaction): tools that need a setting but
not Discord (``tools/backup.py``, ``tools/invite.py``) import this without discord.py.
A setting that is missing or malformed raises ``SettingsError`` saying what to do.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from store import redacted

DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_DATABASE_PATH = Path("data/sequence.db")
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg"
DEFAULT_METRICS_HOST = "127.0.0.1"  # metrics and health are for this machine unless told
# the Activity's page: for a tunnel or a reverse proxy on this machine unless told
DEFAULT_ACTIVITY_HOST = "127.0.0.1"


class SettingsError(ValueError):
    """A setting is missing or malformed; the message says what to do."""


@dataclass(frozen=True)
class ActivityLimits:
    """What a stranger may make the Activity ask of Discord, and the sockets it holds
    (docs/ADMIN.md, "The Activity under a flood"). Each is ``ACTIVITY_`` and its name in
    capitals (``ACTIVITY_LOGINS_PER_MINUTE``); the same names and defaults as the
    Activity's own ``activity.doors.Limits``, which ``bot.py`` builds from these. A rate
    of 0 turns that bucket off."""

    logins_per_minute: float = 120.0  # logins in all: each is a request to Discord
    login_burst: int = 30
    source_logins_per_minute: float = 60.0  # from one source, as a trusted proxy says it
    source_login_burst: int = 15
    # instance look-ups in all, on the bot token's budget (at its lowest step: a restart
    # with a hundred Activities open looks each up again at once)
    lookups_per_minute: float = 600.0
    lookup_burst: int = 100
    person_lookups_per_minute: float = 6.0  # one person's
    person_lookup_burst: int = 6
    sockets_per_person: int = 4  # past it, the person's socket heard from least lately goes
    silent_sockets: int = 1000  # sockets open without a hello yet, in all
    # the proxies whose word on the client's address is taken (none: every login shares
    # the bucket in all), and the header they write it in
    trusted_proxies: tuple[str, ...] = ()
    client_ip_header: str = "X-Forwarded-For"
    # (not read from the environment: what the tests shorten)
    silent_grace: float = 1.0
    hello_seconds: float = 10.0
    incident_quiet: float = 10.0

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActivityLimits:
        read: dict[str, Any] = {}
        for f in fields(cls):
            name = f"ACTIVITY_{f.name.upper()}"
            if f.name in _NOT_SETTINGS or not env.get(name, "").strip():
                continue
            text = env[name].strip()
            if f.name == "trusted_proxies":
                read[f.name] = _proxies(name, text)
            elif f.name == "client_ip_header":
                if not re.fullmatch(r"[A-Za-z0-9-]{1,64}", text):
                    raise SettingsError(f"{name} must be a header's name, such as "
                                        f"X-Forwarded-For or CF-Connecting-IP, not {text!r}.")
                read[f.name] = text
            elif f.name.endswith("_per_minute"):
                read[f.name] = _rate(name, text)
            else:
                read[f.name] = _at_least_one(name, text)
        return cls(**read)


_NOT_SETTINGS = {"silent_grace", "hello_seconds", "incident_quiet"}


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
    # the token's global rate limit, requests a second (Discord: 50); every process paces
    # itself to its share of it (runtime/budget.py); 0: no pace of its own
    global_limit: int = 50
    # Discord's sharding: how many shards the bot has in all, and which of them this process
    # runs (None: all of them). Both None: one unsharded connection, as a small bot has.
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    # SEQUENCE_SEED: every game shuffled and rolled from this one seed, for benchmarks that
    # must compare the same game before and after a change; never for real play (None: a
    # new random seed each game)
    game_seed: int | None = None
    # seconds between two reads of the servers' preferences (language, layout) when other
    # processes share the database and may change them (cogs/table/prefs.py)
    preferences_every: float = 10.0
    # METRICS_PORT: /metrics (Prometheus) and /healthz on this port (None: off, the
    # default; 0: any free port, said in the log); METRICS_HOST: the address they listen on
    metrics_port: int | None = None
    metrics_host: str = DEFAULT_METRICS_HOST
    # ACTIVITY_PORT: the Activity (a child taps the board, docs/ADMIN.md "The Activity")
    # served on this port (None: off, the default: the chat game alone); ACTIVITY_HOST: the
    # address it listens on; DISCORD_CLIENT_SECRET: the application's OAuth2 secret, which
    # turns a player's login code into who they are (never logged, never sent to a page)
    activity_port: int | None = None
    activity_host: str = DEFAULT_ACTIVITY_HOST
    client_secret: str | None = None
    activity_limits: ActivityLimits = field(default_factory=ActivityLimits)

    @property
    def activity_on(self) -> bool:
        """Whether the Activity is served (``ACTIVITY_PORT`` set): the lobby and the boards
        then carry a "Play on the board" button."""
        return self.activity_port is not None

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
            global_limit=_count(env, "DISCORD_GLOBAL_LIMIT", 50),
            metrics_port=_port(env, "METRICS_PORT"),
            metrics_host=env.get("METRICS_HOST", "").strip() or DEFAULT_METRICS_HOST,
            **cls.shards_from(env),
            **cls.activity_from(env),
        )

    @staticmethod
    def activity_from(env: Mapping[str, str]) -> dict[str, Any]:
        """``ACTIVITY_PORT`` (the Activity on: it needs ``DISCORD_CLIENT_SECRET``),
        ``ACTIVITY_HOST``."""
        port = _port(env, "ACTIVITY_PORT")
        secret = env.get("DISCORD_CLIENT_SECRET", "").strip() or None
        if port is None:
            return {"client_secret": secret}
        if secret is None:
            raise SettingsError(
                "ACTIVITY_PORT needs DISCORD_CLIENT_SECRET: the application's OAuth2 client "
                "secret (Discord Developer Portal > your application > OAuth2 > Client "
                "Secret), with which the Activity learns who is playing.")
        return {"activity_port": port, "client_secret": secret,
                "activity_host": env.get("ACTIVITY_HOST", "").strip() or DEFAULT_ACTIVITY_HOST,
                "activity_limits": ActivityLimits.from_env(env)}

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


def _port(env: Mapping[str, str], name: str) -> int | None:
    text = env.get(name, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) > 65535:
        raise SettingsError(f"{name} must be a port number from 1 to 65535 (0: any free "
                            f"port; empty: off), not {text!r}.")
    return int(text)


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    text = (env.get(name, "") or str(default)).strip()
    if not text.isdigit():
        raise SettingsError(f"{name} must be a whole number, 0 or more (not {text!r}).")
    return int(text)


def _rate(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise SettingsError(f"{name} must be a number a minute, 0 or more (0: no limit), "
                            f"not {text!r}.")
    return value


def _at_least_one(name: str, text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise SettingsError(f"{name} must be a whole number, 1 or more (not {text!r}).")
    return int(text)


def _proxies(name: str, text: str) -> tuple[str, ...]:
    """Addresses or networks separated by commas (``127.0.0.1,10.0.0.0/8``)."""
    found = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            found.append(str(ipaddress.ip_network(part, strict=False)))
        except ValueError as exc:
            raise SettingsError(f"{name} must be addresses or networks separated by commas, "
                                f"such as 127.0.0.1 or 10.0.0.0/8; {part!r} is neither."
                                ) from exc
    return tuple(found)
