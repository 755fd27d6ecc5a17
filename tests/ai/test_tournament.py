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


def test_seeing_and_grabbing_yardsticks_play_kids_only() -> None:
    jobs = jobs_for(["peek:medium", "grab:medium", "medium:random"], ["kids:2", "dice:2"],
                    1, 8, None)
    assert {(j.game, j.first) for j in jobs} == {
        ("kids", "peek"), ("kids", "grab"), ("kids", "medium"), ("dice", "medium")}


def test_the_grab_yardstick_takes_a_win_and_otherwise_plays_anything() -> None:
    from tests.ai.positions import kids_position
    from tools.tournament import GrabAgent

    # Red holds B1 and C1 beside the free corner A1: the gorilla on D1 wins.
    game = kids_position([["B1", "C1"], ["B3", "C3"]], ["lion", "gorilla", "whale"])
    obs = game.observation(0)
    assert {GrabAgent(seed).choose(obs) for seed in range(20)} == {"gorilla@D1"}
    game = kids_position([["B1"], ["B3", "C3"]], ["lion", "gorilla", "whale"])
    obs = game.observation(0)
    assert len({GrabAgent(seed).choose(obs) for seed in range(40)}) > 2


def test_the_peeking_search_plays_a_whole_game() -> None:
    result = play_deal(Job("kids", 2, "peek", "medium", 0, 8, None))
    assert result["games"] == 2
