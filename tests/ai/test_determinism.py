"""The same seed and budget give the same move, whatever else the player was asked."""

from __future__ import annotations

from typing import Any

import pytest

from engine.ai import make_agent
from tests.ai.positions import TABLES, random_position

BUDGET: dict[str, Any] = {"iterations": 30, "time_limit": None}


@pytest.mark.parametrize(("game", "seats", "options"), TABLES[:1] + TABLES[7:8])
@pytest.mark.parametrize("level", ["random", "easy", "medium", "hard"])
def test_same_seed_same_choices(game: str, seats: int, options: dict[str, Any],
                                level: str) -> None:
    observations = []
    for seed in range(12):
        g = random_position(game, seats, options, seed, seed * 3)
        if not g.is_over and g.current_seat is not None:
            observations.append(g.observation(g.current_seat))
    first = make_agent(level, 42, **BUDGET)
    second = make_agent(level, 42, **BUDGET)
    forwards = [first.choose(o) for o in observations]
    backwards = [second.choose(o) for o in reversed(observations)]
    assert forwards == list(reversed(backwards))
    assert forwards == [first.choose(o) for o in observations]


def test_different_seeds_play_differently_at_random() -> None:
    g = random_position("kids", 2, {"level": "3"}, 1, 0)
    obs = g.observation(g.current_seat)
    choices = {make_agent("random", seed).choose(obs) for seed in range(40)}
    assert len(choices) > 1
