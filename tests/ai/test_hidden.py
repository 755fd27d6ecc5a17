"""Computer players never read hidden information: only their own observation."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

import engine
from engine.ai import make_agent
from engine.kids import KidsGame
from tests.ai.positions import random_position

BUDGET: dict[str, Any] = {"iterations": 24, "time_limit": None}


def _with_hidden_cards_redealt(g: KidsGame, seed: int) -> KidsGame:
    """The same game except for what the seat to move cannot see: the other hands and the
    deck are dealt again from the same cards."""
    seat = g.current_seat
    d = g.to_dict()
    hidden = list(d["deck"])
    for s, hand in enumerate(d["hands"]):
        if s != seat:
            hidden.extend(hand)
    random.Random(seed).shuffle(hidden)
    for s, hand in enumerate(d["hands"]):
        if s != seat:
            d["hands"][s] = [hidden.pop() for _ in hand]
    d["deck"] = hidden
    other = engine.load(d)
    assert isinstance(other, KidsGame)
    return other


@pytest.mark.parametrize("level", ["random", "easy", "medium", "hard"])
@pytest.mark.parametrize("seed", range(6))
def test_hidden_cards_change_neither_the_observation_nor_the_choice(level: str,
                                                                    seed: int) -> None:
    g = random_position("kids", 3, {}, seed, 2 + 3 * seed)
    assert isinstance(g, KidsGame) and g.current_seat is not None
    other = _with_hidden_cards_redealt(g, seed + 100)
    seat = g.current_seat
    assert other.hands != g.hands or other.deck != g.deck
    obs, other_obs = g.observation(seat), other.observation(seat)
    assert obs == other_obs
    assert make_agent(level, 5, **BUDGET).choose(obs) == \
        make_agent(level, 5, **BUDGET).choose(other_obs)


@pytest.mark.parametrize(("game", "seats"), [("kids", 2), ("kids", 4), ("dice", 3)])
def test_players_work_from_the_observation_alone(game: str, seats: int) -> None:
    """An observation through JSON (as the manager stores and sends it) holds no secret
    and is enough to play from; choosing does not change it."""
    g = random_position(game, seats, {}, 11, 9)
    seat = g.current_seat
    assert seat is not None
    obs = json.loads(json.dumps(g.observation(seat)))
    for secret in ("hands", "deck", "rng", "seed"):
        assert secret not in obs
    before = copy.deepcopy(obs)
    for level in ("easy", "medium", "hard"):
        assert make_agent(level, 1, **BUDGET).choose(obs) in obs["legal"]
    assert obs == before


def test_kids_observation_without_own_hand_details_still_plays() -> None:
    # ``dead`` is derived from the hand and the board; a player must not need it.
    g = random_position("kids", 2, {}, 4, 6)
    seat = g.current_seat
    assert seat is not None
    obs = g.observation(seat)
    del obs["dead"]
    del obs["discard_tops"]
    assert make_agent("hard", 1, **BUDGET).choose(obs) in obs["legal"]
