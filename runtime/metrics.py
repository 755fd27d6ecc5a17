"""The bot's metrics for Prometheus: the instruments, and the plain hooks that feed them.

Every metric is in a registry of this bot's own (not prometheus-client's global one), so
several bots in one process (the tests) each count their own. What feeds what; no layer
below this one imports prometheus-client:

- the game manager's events (this is one of its listeners): moves committed, by game and
  by how (``Moved.by``, and ``Moved.via`` for a person's move);
- the Discord side's ``Watch`` (``cogs/table/watch.py``): a board is out, so the wait
  since its change's commit (``Event.at``);
- the store's ``TransactionWatch`` (``Store.watch``): each transaction's time and errors;
- ``RestTraffic`` (``runtime/traffic.py``, through discord.py's ``http_trace``): REST
  requests by route class, 429s by scope, interaction acknowledgements;
- the Activity's doors (``activity/refusals.py``, through ``Watching.door_refused``):
  every refusal, by door;
- a log handler: every record logged with a traceback is a bug nobody handled
  (``runtime/logs.py``: faults that are not bugs are logged without one);
- read when Prometheus asks (``Collector``s below): the lobbies and games open
  (``GameManager.tables``), the chores claimed and tables taken over
  (``GameManager.tally``), this process's shards and their gateway latency.

``docs/ADMIN.md`` ("Metrics and health") says what each one means to an admin.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable

import discord
from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from manager import OPEN, Event, GameManager, Moved
from store import IntegrityError

from .traffic import SCOPES

GAMES = ("kids", "dice")
#: how a move was made: a person's from where they made it (``Moved.via``), the others by
#: who made it (``Moved.by``); "resign" for a seat given up (resigned, left, removed, or
#: freed after missed turns), "other" for a person's move no transport named
HOWS = ("dm", "channel", "command", "activity", "computer", "timer", "auto", "resign",
        "other")
CHORES = ("computer", "reminder", "turn_timer", "lobby_timeout", "look")
#: the Activity's doors a refusal is counted at (``activity/refusals.py``)
DOORS = ("login", "instance", "socket", "hello")
#: the parts of the bot that log (the first part of a logger's name): "sequence" is the
#: bot's own log (bot.py, runtime/)
WHERE = ("cogs", "engine", "sequence", "discord", "asyncio")
ACK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)
BOARD_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)
DB_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def how_of(moved: Moved) -> str:
    """The ``how`` label of a move (see ``HOWS``)."""
    if moved.by != "player":
        return moved.by
    if moved.via is not None:
        return moved.via
    return "resign" if moved.action.startswith("resign:") else "other"


class Metrics:
    """This bot's instruments. Feed it; ``registry`` is what ``/metrics`` shows."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry = registry or CollectorRegistry()
        ProcessCollector(registry=registry)  # process_cpu_seconds_total, memory, start time
        self.moves = Counter("sequence_moves", "Moves committed by this process, by game "
                             "and by how they were made.", ["game", "how"], registry=registry)
        self.acks = Histogram("sequence_interaction_ack_seconds", "From an interaction's "
                              "creation at Discord to the bot's answer reaching Discord "
                              "(Discord refuses answers after 3 s; those count too).",
                              buckets=ACK_BUCKETS, registry=registry)
        self.boards = Histogram("sequence_board_seconds", "From a change's commit (a game's "
                                "start, a move, its end) to its board in the channel.",
                                ["game"], buckets=BOARD_BUCKETS, registry=registry)
        self.requests = Counter("sequence_discord_requests", "REST requests to Discord, by "
                                "route class and status class.", ["route", "status"],
                                registry=registry)
        self.limits_hit = Counter("sequence_discord_rate_limited", "429 answers from "
                                    "Discord, by scope (user: a route's own limit; global: "
                                    "the token's; shared: a resource's).", ["scope"],
                                    registry=registry)
        self.transactions = Histogram("sequence_db_transaction_seconds", "Database "
                                      "transactions (write: a change; read), from asking to "
                                      "the answer.", ["op"], buckets=DB_BUCKETS,
                                      registry=registry)
        self.db_errors = Counter("sequence_db_errors", "Database transactions that failed, "
                                 "by op and kind (constraint: a change refused by the "
                                 "database's rules, such as a second lobby in a channel; "
                                 "other: the database failed it).", ["op", "kind"],
                                 registry=registry)
        self.refused = Counter("sequence_activity_refused", "Requests the Activity refused "
                               "at its doors (a flood: login codes, places, sockets, "
                               "hellos), by door.", ["door"], registry=registry)
        self.errors = Counter("sequence_unhandled_errors", "Errors logged with a traceback "
                              "(bugs), by the part of the bot that logged them.", ["where"],
                              registry=registry)
        self._start_at_zero()

    def _start_at_zero(self) -> None:
        """Every series a dashboard or an alert names, present from the start at 0 (a
        series that first appears at 1 hides that one from ``rate()``)."""
        for game in GAMES:
            self.boards.labels(game)
            for how in HOWS:
                self.moves.labels(game, how)
        for scope in SCOPES:
            self.limits_hit.labels(scope)
        for op in ("write", "read"):
            self.transactions.labels(op)
            for kind in ("constraint", "other"):
                self.db_errors.labels(op, kind)
        for where in WHERE:
            self.errors.labels(where)
        for door in DOORS:
            self.refused.labels(door)

    # -- the game manager's listener ---------------------------------------------------

    async def on_event(self, event: Event) -> None:
        if isinstance(event, Moved):
            self.moves.labels(event.table.game, how_of(event)).inc()

    # -- the Discord side's Watch ------------------------------------------------------

    def board_shown(self, event: Event) -> None:
        self.boards.labels(event.table.game).observe(max(0.0, time.monotonic() - event.at))

    # -- the store's TransactionWatch --------------------------------------------------

    def transaction(self, op: str, seconds: float, error: Exception | None) -> None:
        self.transactions.labels(op).observe(seconds)
        if error is not None:
            kind = "constraint" if isinstance(error, IntegrityError) else "other"
            self.db_errors.labels(op, kind).inc()

    # -- RestTraffic's TrafficWatch ----------------------------------------------------

    def request(self, route: str, status: str) -> None:
        self.requests.labels(route, status).inc()

    def rate_limited(self, scope: str) -> None:
        self.limits_hit.labels(scope).inc()

    def acknowledged(self, seconds: float) -> None:
        self.acks.observe(seconds)

    # -- the Activity's doors (its DoorWatch) ------------------------------------------

    def door_refused(self, door: str) -> None:
        self.refused.labels(door).inc()

    # -- read when asked ---------------------------------------------------------------

    def follow(self, manager: GameManager) -> None:
        """The manager's tables and tally, read at each scrape (and its events heard)."""
        self.registry.register(TablesCollector(manager))
        manager.add_listener(self)

    def follow_shards(self, shards: Callable[[], Iterable[tuple[int, bool, float]]]
                      ) -> None:
        """``shards()``: (shard id, connected, gateway latency) of each shard this process
        runs, read at each scrape."""
        self.registry.register(ShardsCollector(shards))

    def counting_errors(self) -> logging.Handler:
        """A log handler that counts every record logged with a traceback."""
        return ErrorCounter(self.errors)


class TablesCollector(Collector):
    """Lobbies and games open, chores claimed, tables taken over: read from the manager."""

    def __init__(self, manager: GameManager) -> None:
        self._manager = manager

    def collect(self) -> Iterable[Metric]:
        open_ = GaugeMetricFamily("sequence_tables_open", "Lobbies and games open now, by "
                                  "game and status (several processes on one database: "
                                  "each shows them all).", labels=["game", "status"])
        counts = {(g, s): 0 for g in GAMES for s in OPEN}
        for table in self._manager.tables():
            key = (table.game, table.status)
            counts[key] = counts.get(key, 0) + 1
        for (game, status), n in sorted(counts.items()):
            open_.add_metric([game, str(status)], n)
        yield open_
        tally = self._manager.tally
        claimed = CounterMetricFamily("sequence_chores_claimed", "Scheduled work this "
                                      "process claimed when it came due, by what it was.",
                                      labels=["what"])
        for what in sorted({*CHORES, *tally.chores_claimed}):
            claimed.add_metric([what], tally.chores_claimed[what])
        yield claimed
        yield CounterMetricFamily("sequence_tables_taken_over", "Tables this process showed "
                                  "again because the process that changed them died before "
                                  "posting the change.", value=tally.taken_over)


class ShardsCollector(Collector):
    """The shards this process runs: connected or not, and their gateway latency."""

    def __init__(self, shards: Callable[[], Iterable[tuple[int, bool, float]]]) -> None:
        self._shards = shards

    def collect(self) -> Iterable[Metric]:
        connected = GaugeMetricFamily("sequence_shard_connected", "1 while this shard's "
                                      "gateway connection is open, else 0.", labels=["shard"])
        latency = GaugeMetricFamily("sequence_gateway_latency_seconds", "The time between "
                                    "this shard's last heartbeat and Discord's answer.",
                                    labels=["shard"])
        for shard, up, seconds in self._shards():
            connected.add_metric([str(shard)], 1 if up else 0)
            if math.isfinite(seconds):  # none before the first heartbeat is answered
                latency.add_metric([str(shard)], seconds)
        yield connected
        yield latency


class ErrorCounter(logging.Handler):
    """Counts records logged with a traceback, by the first part of the logger's name
    (``cogs``, ``engine``, ``discord``, ``asyncio``...)."""

    def __init__(self, counter: Counter) -> None:
        super().__init__(logging.ERROR)
        self._counter = counter

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[0] is not None:
            self._counter.labels(record.name.split(".")[0]).inc()


def shards_of(bot: discord.Client, ids: Iterable[int]) -> list[tuple[int, bool, float]]:
    """(shard id, connected, latency) of each of ``ids`` (the shards this process runs):
    a shard not started yet is not connected."""
    if isinstance(bot, discord.AutoShardedClient):
        infos = bot.shards
        return [(i, i in infos and not infos[i].is_closed(),
                 infos[i].latency if i in infos else math.inf) for i in ids]
    ws = bot.ws
    return [(i, ws is not None and ws.open and not bot.is_closed(), bot.latency) for i in ids]
