"""Composition root: the settings, the log, the store, the manager, the table desk and the
cogs, built once, typed, and handed to what uses them. Nothing else.

    python bot.py          (or: make run)

Settings come from the environment and ``.env`` (``runtime/settings.py``, ``.env.example``);
the link to Discord (where it is, reconnecting, one line per fault) is ``runtime/link.py``.
Start-up tells the admin each stage in one line (docs/ADMIN.md "First start"): commands
synced (where), logged in as whom in how many servers, the invite URL, ready. A token
Discord refuses ends it with status 1, a missing token with status 2.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from cogs.community import Community
from cogs.i18n import Translator
from cogs.sequence import Sequence
from cogs.table import ALL_ITEMS, Desk
from cogs.table.buttons import Clicks
from cogs.table.pace import ChannelPace
from manager import Clock, GameManager
from runtime.budget import GlobalBudget, processes_of
from runtime.commands import AnnouncedTree, sync_commands
from runtime.heap import settle
from runtime.intents import gateway_options
from runtime.invite import invite_url
from runtime.link import pace_reconnects, point_discord_at, quiet_voice_warnings, serve
from runtime.logs import setup_logging
from runtime.reachable import open_when_reachable
from runtime.settings import Settings, SettingsError
from store import SchemaTooNew, Store, redacted

if TYPE_CHECKING:  # loaded only when switched on (below): a web server takes a start's time
    from activity import Activity
    from runtime.watching import Watching

log = logging.getLogger("sequence")

DRAIN_SECONDS = 5.0  # how long a stop waits for the clicks under way (then cuts them)


class SequenceBot(commands.Bot):
    """The bot: opens the store, starts the manager, builds the table desk, adds the cogs,
    syncs the commands. Each part is built here, typed, and handed to what uses it."""

    def __init__(self, settings: Settings, *, clock: Clock | None = None,
                 drain_seconds: float = DRAIN_SECONDS, settle_heap: bool = False,
                 **options: Any) -> None:
        """``clock``: the game manager's time (tests move it by hand; default the system's);
        ``drain_seconds``: how long a stop waits for the clicks under way; ``settle_heap``:
        freeze start-up's objects once set up (``runtime/heap.py``; one bot a process)."""
        options = {**gateway_options(), **options}  # (its servers only, no message cache)
        # this process's share of the token's global rate limit, before every REST request
        self.budget = GlobalBudget(settings.global_limit, settings.api_base)
        # /metrics and /healthz, only with METRICS_PORT: its REST counts after the budget's pace
        self.watching: Watching | None = None
        trace = self.budget.trace
        if settings.metrics_port is not None:
            from runtime.watching import Watching
            self.watching = Watching(self, settings)
            self.watching.trace_into(trace)
        options.setdefault("http_trace", trace)
        # the Activity (a child taps the board), only with ACTIVITY_PORT (activity/)
        self.activity_app: Activity | None = None
        if settings.activity_port is not None:
            from activity import Activity, ActivityConfig, Limits
            self.activity_app = Activity(ActivityConfig(
                settings.activity_port, settings.client_secret or "", settings.token,
                settings.api_base, settings.activity_host,
                limits=Limits(**vars(settings.activity_limits))),
                trace=trace, urgent=self.budget.urgent, watch=self.watching)
        super().__init__(command_prefix=commands.when_mentioned, help_command=None, **options)
        self.settings, self._clock = settings, clock
        self._drain_seconds, self._settle_heap = drain_seconds, settle_heap
        self.store: Store | None = None
        self.manager: GameManager | None = None
        self.desk: Desk | None = None
        self._invited = False  # the invite link is logged at the first ready only

    async def login(self, token: str) -> None:
        if self.watching is not None:  # a supervisor hears from it while it reaches Discord
            await self.watching.serve()
        await super().login(token)

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
            assert self.store is not None
            await sync_commands(self.tree, self.settings, self.store.games)
            return
        url = self.settings.database_url
        self.store = store = await open_when_reachable(url, self.settings.database_path)
        log.info("database opened: %s (schema version %d)",
                 redacted(url) if url else self.settings.database_path, store.schema_version)
        await self.budget.follow(processes_of(store))  # how many processes share the token
        seed = self.settings.game_seed  # (benchmarks only: the same games every run)
        self.manager = manager = GameManager(
            store, computer_delay=self.settings.computer_delay, clock=self._clock,
            seed_source=None if seed is None else (lambda: seed))
        if self.watching is not None:
            self.watching.attach(manager, store)
        if self.activity_app is not None:  # told first: it pushes without waiting for Discord
            self.activity_app.attach(manager, self.application_id or 0)
        self.desk = desk = Desk(self, manager, rows=store.rows, watch=self.watching,
                                pace=ChannelPace(messages=self.settings.channel_pace),
                                board_button=self.settings.activity_on,
                                urgent=self.budget.urgent)
        # the servers' languages and layouts before anything is shown, whatever cog loads
        await desk.prefs.load(store.games, desk.layout)
        # other processes may change them (/sequence settings in a server of theirs)
        desk.prefs.follow(store, desk.layout, self.settings.preferences_every)
        manager.add_listener(desk)
        self.add_dynamic_items(*ALL_ITEMS)
        # each cog in its own try, so one that fails does not take the bot down (stats and
        # settings join the /sequence group, so they come after it)
        for name, make in (
                ("sequence", lambda: Sequence(self, desk)),
                ("community", lambda: Community(self, manager, desk.prefs, store.standings,
                                                desk.layout, desk.in_flight))):
            try:
                await self.add_cog(make())
            except Exception:
                log.exception("could not add the %s commands; the bot runs without them", name)
        await self.tree.set_translator(Translator())
        # the desk listens before the manager restarts games, so nothing is missed
        await manager.start()
        if self.activity_app is not None:
            await self.activity_app.serve()
        if self._settle_heap:  # (before the one step that may fail and be tried again)
            settle()
        await sync_commands(self.tree, self.settings, store.games)

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

    async def close(self) -> None:
        if self.watching is not None:
            await self.watching.stop()
        if self.activity_app is not None:  # (its pages reconnect to whoever serves next)
            await self.activity_app.stop()
        # A click that made a move is still posting its board and answering the player:
        # let it finish (a little while at most) before the connections it needs close,
        # so a stop never cuts an answer in half; one still going then is cut before they
        # close, not left to fail on them.
        if self.desk is not None and (busy := self.desk.in_flight.busy()):
            log.info("stopping: waiting for %d click(s) under way", busy)
            if cut := await self.desk.in_flight.finish(self._drain_seconds):
                log.warning("stopping: %d click(s) still under way after %g s were cut (what "
                            "they saved is kept; the next start shows it)", cut,
                            self._drain_seconds)
        if self.desk is not None:
            self.desk.prefs.stop()
            await self.desk.close()
        if self.manager is not None:
            await self.manager.close()
            self.manager = None
        await self.budget.close()  # (requests still waiting for it are cancelled)
        await super().close()
        if self.store is not None:
            await self.store.close()
            self.store = None
            log.info("database closed")


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


async def run(settings: Settings, **options: Any) -> None:
    """Run until SIGINT/SIGTERM (or the connection fails for good), then shut down cleanly."""
    point_discord_at(settings.api_base, settings.gateway_url)
    quiet_voice_warnings()
    pace_reconnects(settings)
    options.setdefault("tree_cls", AnnouncedTree)
    options.setdefault("settle_heap", True)  # (this process runs this one bot)
    bot = bot_class(settings)(settings, **options)
    if settings.sharded:
        log.info("running shard%s %s of %d", "" if len(settings.shard_ids or ()) == 1 else "s",
                 ",".join(map(str, settings.shard_ids)) if settings.shard_ids else "all",
                 settings.shard_count)
    await serve(bot, settings, lambda: not bot.is_closed() or bot.store is not None)


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
    setup_logging(settings.log_level, settings.token, settings.client_secret)
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
