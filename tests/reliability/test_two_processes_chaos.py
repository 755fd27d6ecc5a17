"""Two bot processes on one PostgreSQL, each SIGKILLed while four tables play (issue 17):
the quick size of ``make reliability``'s "2 processes, PostgreSQL" row, as a test.

The run (tests/reliability/two_chaos.py) kills shard 0's process while a computer player
waits for the turn it was to drive, and shard 1's process a few seconds before a turn
timer in its own server runs out; the other process must carry both.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.pg_server import find_bindir

from .two_chaos import quick_run


@pytest.mark.slow
async def test_two_processes_killed_in_turn_lose_and_double_nothing(tmp_path: Path) -> None:
    if find_bindir() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("PostgreSQL is not installed: under CI=true this run must happen")
        pytest.skip("PostgreSQL is not installed (no initdb/pg_ctl found)")
    r = await quick_run(tmp_path).run()
    summary = r.summary()
    assert r.kills == 2 and r.kills_of[0] == r.kills_of[1] == 1, summary
    assert r.games_started == 4 and r.games_finished == r.games_started, summary
    assert r.moves_confirmed > 0 and r.dm_moves > 0 and r.board_moves > 0, summary
    assert r.timers_acted >= 1, summary
    assert r.moves_lost == [] and r.moves_unshown == [] and r.committed_lost == [], summary
    assert r.final_boards_missing == [], summary
    assert r.duplicates == [], summary
    assert r.unhandled == [] and r.invariant_problems == [], summary
    assert r.leaks == [], summary
    # the kill loop waited for what the dead process left (a computer turn, a timer): the
    # live one carried it before the restart
    assert r.takeovers and r.not_taken_over == [], summary
