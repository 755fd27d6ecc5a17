"""The hard Kids search deals hidden cards consistently with what the last move showed."""

from __future__ import annotations

import random

from engine.ai.determinize import rebuild
from engine.ai.kids_search import redeal, unlikely_cards
from engine.kids import KidsGame
from engine.kids_board import CARD_NUMBER, UNICORN
from tests.ai.positions import kids_position

GIRAFFE = CARD_NUMBER["giraffe"]


def _after_blue_missed_its_win() -> KidsGame:
    # Blue holds A2 and A3 under the free corner A1: the giraffe on A4 would have won.
    # Blue had no giraffe and no Unicorn, so it played a lion elsewhere.
    game = kids_position([["C3", "E5"], ["A2", "A3"]], ["lion", "penguin", "whale"],
                         seed=3, to_move=1)
    game.apply("lion@B3")
    seen = rebuild(game.observation(0), random.Random(1))
    assert isinstance(seen, KidsGame)
    return seen


def _fillers(hand: list[int]) -> int:
    return sum(card in (GIRAFFE, UNICORN) for card in hand)


def test_a_missed_win_says_the_player_held_no_card_for_it() -> None:
    game = _after_blue_missed_its_win()
    found = unlikely_cards(game, 0)
    assert found is not None
    seat, kinds = found
    assert seat == 1
    assert kinds >> GIRAFFE & 1 and kinds >> UNICORN & 1
    assert kinds.bit_count() == 2


def test_deals_give_that_player_at_most_the_one_card_drawn_since() -> None:
    game = _after_blue_missed_its_win()
    found = unlikely_cards(game, 0)
    rng = random.Random(5)
    plain = [_fillers(redeal(game, 0, rng).hands[1]) for _ in range(3000)]
    informed = [redeal(game, 0, rng, found) for _ in range(3000)]
    assert max(plain) >= 2  # without the inference such deals do come up
    assert max(_fillers(g.hands[1]) for g in informed) <= 1
    # Every card is still dealt exactly once.
    for g in informed[:50]:
        assert sorted(g.deck + g.hands[1]) == sorted(game.deck + game.hands[1])
        assert g.hands[0] == game.hands[0]


def test_nothing_is_inferred_after_an_ordinary_opening_move() -> None:
    game = kids_position([["C3"], ["E5"]], ["lion", "penguin", "whale"], seed=3, to_move=1)
    game.apply("lion@B3")
    seen = rebuild(game.observation(0), random.Random(1))
    assert isinstance(seen, KidsGame)
    assert unlikely_cards(seen, 0) is None


def _searched(game: KidsGame, sees: str) -> object:
    from engine.ai.kids_search import search

    found = search(game, random.Random(5), 120, None, sees=sees)
    return found.move, found.values


def test_the_peeking_search_knows_the_hands_but_not_the_deck_order() -> None:
    # The seat to move is found by its hand and the board; any order of the same deck
    # gives the same search, but other cards in Blue's hand give another.
    game = kids_position([["B2", "C4"], ["B3", "D4", "E3"]], ["lion", "whale", "moose"], seed=2)
    assert isinstance(game, KidsGame)
    shuffled = game.copy()
    random.Random(9).shuffle(shuffled.deck)
    assert shuffled.deck != game.deck
    assert _searched(shuffled, "hands") == _searched(game, "hands")
    swapped = game.copy()
    swapped.hands[1], swapped.deck[-3:] = swapped.deck[-3:], swapped.hands[1]
    assert sorted(swapped.hands[1]) != sorted(game.hands[1])
    assert _searched(swapped, "hands") != _searched(game, "hands")
    # Seeing everything, the order of the deck is known and does change the search.
    assert _searched(shuffled, "all") != _searched(game, "all")


def test_the_search_refuses_an_unknown_view_of_the_cards() -> None:
    import pytest

    from engine.ai.kids_search import search

    game = kids_position([["B2"], ["B3"]], ["lion", "whale", "fox"])
    assert isinstance(game, KidsGame)
    with pytest.raises(ValueError, match="sees"):
        search(game, random.Random(1), 10, None, sees="everything")
