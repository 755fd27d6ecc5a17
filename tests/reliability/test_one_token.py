"""Four ``python bot.py`` processes on one token stay under its global rate limit
together (issue 26, item 3), where the same load without the budget overdraws it.

One throwaway PostgreSQL, one fake Discord enforcing the limit over all four at once, a
bounded load of computer games with no delay in tidy servers and people playing at a
person's pace (``one_token.py``). The figures (requests/s, board latency, the ratios)
come from ``python -m bench budget``, not from here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.one_token import Load, before_and_after
from tools.pg_server import PostgresServer


@pytest.mark.slow
async def test_four_processes_on_one_token_get_no_global_429_where_they_got_many(
        tmp_path: Path, postgres_server: PostgresServer) -> None:
    before, after = await before_and_after(
        postgres_server.url(), tmp_path, Load(computer_channels=6, people_tables=1,
                                              window_s=15.0))
    assert before.global_429s > 0, ("without the budget this load overdraws the token",
                                    before)
    assert after.global_429s == 0, after
    assert all("4 processes" in line for line in after.budget_lines), after.budget_lines
    assert after.board_ms, ("people kept playing meanwhile", after)
    assert after.errors == []
