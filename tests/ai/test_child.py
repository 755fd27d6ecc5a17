"""The easy Kids player plays like a young child: mostly sensible, sometimes not.

Its whims come from its seed, so each test asks many easy players (seeds 0..199) the same
question and checks how the answers are spread.
"""

from __future__ import annotations

from collections import Counter

from engine.ai import make_agent
from tests.ai.positions import kids_position

SEEDS = range(200)


def answers(chips: list[list[str]], hand: list[str]) -> Counter[str]:
    game = kids_position(chips, hand, seed=3)
    obs = game.observation(0)
    return Counter(make_agent("easy", seed).choose(obs) for seed in SEEDS)


def test_easy_player_usually_sees_its_winning_move_but_not_always() -> None:
    # Red holds B1 and C1 beside the free corner A1: the gorilla on D1 wins.
    got = answers([["B1", "C1"], ["B3", "C3"]], ["lion", "gorilla", "whale"])
    share = got["gorilla@D1"] / len(SEEDS)
    assert 0.7 <= share <= 0.95, got


def test_easy_player_puts_its_chip_next_to_its_own_chips() -> None:
    # The lion fits B3 (next to Red's B4 and C2) or F6 (next to the free corner F7 only).
    got = answers([["B4", "C2"], ["E2"]], ["lion"])
    assert got["lion@B3"] >= 0.8 * len(SEEDS), got
    assert got["lion@F6"] > 0, "a child has whims: sometimes it goes elsewhere"


def test_easy_player_does_not_look_at_what_the_others_build() -> None:
    # Blue wins next turn on A4; the medium player always blocks there (test_tactics), a
    # child mostly plays its own game.
    got = answers([["C3", "E5"], ["A2", "A3"]], ["lion", "giraffe", "penguin"])
    assert got["giraffe@A4"] < 0.5 * len(SEEDS), got


def test_easy_player_swaps_a_dead_card() -> None:
    # Both lion spaces (B3, F6) are taken: the lion is dead, and a child likes a new card.
    got = answers([["B3", "C3"], ["F6"]], ["lion", "whale", "moose"])
    assert got == Counter({"dead:lion": len(SEEDS)})


def test_easy_player_prefers_an_animal_to_its_unicorn() -> None:
    # The zebra fits B5 or E6; the Unicorn fits anywhere. Red's chips sit around B5.
    got = answers([["A5", "B4", "C4"], ["E2"]], ["zebra", "unicorn"])
    unicorn = sum(n for action, n in got.items() if action.startswith("unicorn@"))
    assert got["zebra@B5"] > unicorn, got
