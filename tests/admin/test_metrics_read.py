"""What the metrics read from the game manager at each scrape: the lobbies and games open,
and its tally of chores claimed (a lobby left idle is cancelled by a chore)."""

from __future__ import annotations

import logging
from pathlib import Path

from prometheus_client import generate_latest

from manager import GameManager, ManualClock, Player, Store
from runtime.metrics import Metrics
from tests.e2e.scrape import Scrape

ANN = Player(1, "Ann")


async def test_open_tables_and_chores_claimed_are_read_from_the_manager(tmp_path: Path
                                                                       ) -> None:
    clock = ManualClock()
    async with await Store.open(tmp_path / "sequence.db") as store:
        manager = GameManager(store, clock=clock, computer_delay=0)
        await manager.start(run_timers=False)
        metrics = Metrics()
        metrics.follow(manager)
        try:
            await manager.create_lobby("dice", {}, ANN, 5, 9)
            seen = Scrape(generate_latest(metrics.registry).decode())
            assert seen["sequence_tables_open", {"game": "dice", "status": "lobby"}] == 1
            assert seen["sequence_tables_open"] == 1
            assert seen["sequence_chores_claimed_total"] == 0
            clock.advance(manager.lobby_idle + 1)
            await manager.check_timers()  # the idle lobby's time-out is claimed and done
            seen = Scrape(generate_latest(metrics.registry).decode())
            assert seen["sequence_tables_open"] == 0
            assert seen["sequence_chores_claimed_total", {"what": "lobby_timeout"}] == 1
            assert seen["sequence_tables_taken_over_total"] == 0
        finally:
            await manager.close()


def test_only_errors_logged_with_a_traceback_count_as_bugs() -> None:
    metrics = Metrics()
    handler = metrics.counting_errors()
    log = logging.getLogger("cogs.table.clicks")
    log.addHandler(handler)
    try:
        try:
            raise RuntimeError("a bug")
        except RuntimeError:
            log.exception("move button failed")  # a bug: a traceback
        log.error("database unreachable: connection refused; retrying")  # a fault: one line
        log.warning("could not say %r to user %d", "already_played", 1)
    finally:
        log.removeHandler(handler)
    seen = Scrape(generate_latest(metrics.registry).decode())
    assert seen["sequence_unhandled_errors_total", {"where": "cogs"}] == 1
    assert seen["sequence_unhandled_errors_total"] == 1
