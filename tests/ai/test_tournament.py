"""The tournament balances seats and reports honest intervals."""

from __future__ import annotations

import pytest

from tools.tournament import Job, jobs_for, play_deal, report, run, wilson


def test_wilson_interval_matches_the_textbook_values() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    low, high = wilson(10, 10)
    assert high == 1.0 and low == pytest.approx(0.7225, abs=1e-3)


@pytest.mark.parametrize(("game", "seats"), [("kids", 2), ("dice", 3)])
def test_a_deal_is_played_once_with_the_first_level_in_every_seat(game: str,
                                                                  seats: int) -> None:
    result = play_deal(Job(game, seats, "medium", "random", 0, 8, None))
    assert result["games"] == seats
    assert 0 <= result["wins"] + result["draws"] <= seats
    assert result["score"] == pytest.approx(result["wins"] + result["draws"] / seats)


def test_jobs_interleave_matches_and_rows_report_every_match() -> None:
    jobs = jobs_for(["easy:random", "medium:random"], ["kids:2"], 2, 8, None)
    assert [(j.first, j.deal) for j in jobs] == [("easy", 0), ("medium", 0), ("easy", 1),
                                                 ("medium", 1)]
    rows = report(run(jobs, workers=1, max_seconds=60))
    assert {r["pair"] for r in rows} == {"easy:random", "medium:random"}
    assert all(r["games"] == 4 and r["ci_low"] <= r["score"] <= r["ci_high"] for r in rows)
