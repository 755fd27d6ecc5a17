"""The tournament balances seats and reports honest intervals."""

from __future__ import annotations

import random

import pytest

from engine.kids import KidsGame
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



def test_the_look_ahead_yardstick_searches_again_at_its_next_turn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import tools.tournament as tournament

    looked: list[int] = []
    real = tournament.look_ahead

    def spy(game: KidsGame, rng: random.Random, side: int) -> int:
        assert game.side_of[game.current] == side  # only ever at the searcher's own turn
        looked.append(side)
        return real(game, rng, side)

    monkeypatch.setattr(tournament, "look_ahead", spy)
    result = play_deal(Job("kids", 2, "ahead", "medium", 0, 8, None))
    assert result["games"] == 2
    assert set(looked) == {0, 1}  # it sat in both seats and searched ahead in each


def test_looking_ahead_knows_the_hands_but_not_the_deck_order() -> None:
    from engine.ai.kids_search import shortlist
    from tests.ai.positions import kids_position
    from tools.tournament import look_ahead

    game = kids_position([["B2", "C4"], ["B3", "D4", "E3"]], ["lion", "whale", "moose"], seed=2)
    assert isinstance(game, KidsGame)
    assert len(shortlist(game, 3)) == 3
    shuffled = game.copy()
    random.Random(9).shuffle(shuffled.deck)
    assert shuffled.deck != game.deck
    chosen = [look_ahead(game, random.Random(seed), 0) for seed in range(6)]
    assert [look_ahead(shuffled, random.Random(seed), 0) for seed in range(6)] == chosen
    assert set(chosen) <= set(shortlist(game, 3))
