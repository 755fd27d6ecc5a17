"""A game rebuilt from one seat's observation is that seat's game: same moves, same view."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engine.ai.determinize import rebuild, unseen_cards
from engine.kids import KidsGame
from engine.kids_board import CARD_NUMBER, deck_for
from tests.ai.positions import TABLES, random_position


def _public(obs: dict[str, Any]) -> dict[str, Any]:
    # The history itself is not in an observation, so its length cannot be rebuilt.
    return {k: v for k, v in obs.items() if k != "history_length"}


@pytest.mark.parametrize(("game", "seats", "options"), TABLES)
@pytest.mark.parametrize("seed", range(5))
def test_rebuilt_game_has_the_same_observation_and_moves(game: str, seats: int,
                                                         options: dict[str, Any],
                                                         seed: int) -> None:
    rng = random.Random(seed)
    for plies in (0, 7, 23, 61):
        g = random_position(game, seats, options, seed, plies)
        for seat in range(seats):
            obs = g.observation(seat)
            again = rebuild(obs, rng)
            assert _public(again.observation(seat)) == _public(obs)
            if seat == g.current_seat:
                assert again.legal_actions() == obs["legal"]


@pytest.mark.parametrize("seed", range(10))
def test_kids_determinization_keeps_every_card_exactly_once(seed: int) -> None:
    g = random_position("kids", 3, {}, seed, 40 + seed)
    assert isinstance(g, KidsGame)
    seat = 1
    obs = g.observation(seat)
    again = rebuild(obs, random.Random(seed))
    assert isinstance(again, KidsGame)
    everything = Counter(again.deck)
    for hand in again.hands:
        everything.update(hand)
    for pile in again.discards:
        everything.update(pile)
    assert everything == Counter(deck_for("normal"))
    assert again.hands[seat] == g.hands[seat]
    assert [len(h) for h in again.hands] == [len(h) for h in g.hands]
    assert len(again.deck) == len(g.deck)
    # What the seat cannot see is exactly the other hands and the deck, as a multiset.
    hidden = Counter(g.deck)
    for s, hand in enumerate(g.hands):
        if s != seat:
            hidden.update(hand)
    assert Counter(unseen_cards(obs)) == hidden


def test_different_random_numbers_give_different_deals() -> None:
    g = random_position("kids", 2, {}, 3, 4)
    obs = g.observation(g.current_seat)
    deals = set()
    for n in range(10):
        again = rebuild(obs, random.Random(n))
        assert isinstance(again, KidsGame)
        deals.add(tuple(again.deck))
    assert len(deals) > 1


def test_cards_reshuffled_into_the_deck_are_unseen_again() -> None:
    # Play until the first reshuffle; the discard piles are then empty, so everything not
    # in the seat's own hand is unseen, whatever was played before.
    for seed in range(50):
        g = random_position("kids", 2, {}, seed, 0)
        assert isinstance(g, KidsGame)
        rng = random.Random(seed)
        while not g.is_over and len(g.deck) > 1:
            g.apply(rng.choice(g.legal_actions()))
        while not g.is_over and any(g.discards):
            g.apply(rng.choice(g.legal_actions()))
        if not g.is_over:
            break
    else:
        pytest.fail("no random game lasted until the deck ran out")
    seat = g.current_seat
    obs = g.observation(seat)
    expected = Counter(deck_for("normal"))
    expected.subtract(Counter(CARD_NUMBER[c] for c in obs["hand"]))
    for pile in obs["discards"]:
        expected.subtract(Counter(CARD_NUMBER[c] for c in pile))
    assert Counter(unseen_cards(obs)) == +expected


def test_inconsistent_counts_are_refused() -> None:
    g = random_position("kids", 2, {}, 3, 4)
    obs = g.observation(g.current_seat)
    obs["deck_size"] += 1
    with pytest.raises(ValueError):
        rebuild(obs)
