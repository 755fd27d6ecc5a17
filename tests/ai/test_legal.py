"""Computer players only ever choose legal actions, at every level, on every table."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.ai import LEVELS, make_agent
from tests.ai.positions import TABLES, random_position

BUDGET: dict[str, Any] = {"iterations": 16, "time_limit": None}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=st.sampled_from(TABLES), level=st.sampled_from(LEVELS),
       seed=st.integers(0, 10_000), plies=st.integers(0, 120))
def test_any_level_chooses_a_legal_action_in_any_position(
        table: tuple[str, int, dict[str, Any]], level: str, seed: int, plies: int) -> None:
    game, seats, options = table
    g = random_position(game, seats, options, seed, plies)
    if g.is_over:
        return
    seat = g.current_seat
    assert seat is not None
    obs = g.observation(seat)
    action = make_agent(level, seed, **BUDGET).choose(obs)
    assert action in obs["legal"]
    g.apply(action)  # and the engine agrees


@pytest.mark.parametrize(("game", "seats", "options"), TABLES)
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_a_table_of_computer_players_finishes_a_game(
        game: str, seats: int, options: dict[str, Any], level: str) -> None:
    g = engine.new_game(game, seats, 3, **options)
    agents = [make_agent(level, s, **BUDGET) for s in range(seats)]
    for _ in range(5000):
        if g.is_over:
            break
        seat = g.current_seat
        assert seat is not None
        g.apply(agents[seat].choose(g.observation(seat)))
    assert g.is_over


def test_a_seat_that_is_not_to_move_gets_no_choice() -> None:
    g = engine.new_game("kids", 2, 1)
    with pytest.raises(ValueError):
        make_agent("medium", 1).choose(g.observation(1))


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError):
        make_agent("genius", 1)
