"""Sequence for Kids, rule by rule (seeds 000-003 and the decisions in docs/RULES-MAP.md).
docs/RULES-MAP.md maps every rule sentence to the test here that checks it."""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from engine import IllegalAction
from engine.action import Action
from engine.kids import KidsGame
from engine.kids_board import ANIMALS, CORNERS, FREE, LAYOUT

from .positions import card_count, kids, set_hand

# -- the board and the cards ----------------------------------------------------------------


def test_board_is_seven_rows_of_six_with_every_animal_exactly_twice_and_free_corners() -> None:
    assert len(LAYOUT) == 42
    counts = Counter(LAYOUT)
    assert counts.pop(FREE) == 4
    assert counts == {animal: 2 for animal in ANIMALS}
    assert [LAYOUT[i] for i in (0, 5, 36, 41)] == [FREE] * 4
    assert CORNERS == (0, 5, 36, 41)


def test_no_board_space_shows_a_unicorn_or_a_dragon() -> None:
    assert "unicorn" not in LAYOUT and "dragon" not in LAYOUT


def test_the_deck_has_42_cards_two_of_each_animal_two_unicorns_two_dragons() -> None:
    g = kids(2)
    cards = Counter(g.deck + [c for h in g.hands for c in h])
    assert sum(cards.values()) == 42
    names = Counter({engine_card_name(c): n for c, n in cards.items()})
    assert names["unicorn"] == 2 and names["dragon"] == 2
    assert all(names[a] == 2 for a in ANIMALS)


def engine_card_name(card: int) -> str:
    from engine.kids_board import CARDS

    return CARDS[card]


# -- set-up ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_each_player_is_dealt_three_cards_and_the_rest_form_the_draw_deck(seats: int) -> None:
    g = engine.new_game("kids", seats, seed=5)
    assert isinstance(g, KidsGame)
    assert [len(h) for h in g.hands] == [3] * seats
    assert len(g.deck) == 42 - 3 * seats
    assert g.observation(None)["deck_size"] == 42 - 3 * seats


def test_cards_are_dealt_one_at_a_time_to_each_player() -> None:
    g = engine.new_game("kids", 3, seed=9)
    assert isinstance(g, KidsGame)
    # Rebuild the shuffled deck: the deal took cards from its top in turn, seat by seat.
    from engine.kids_board import deck_for
    from engine.rng import GameRng

    deck = deck_for("normal")
    GameRng.from_seed(9).shuffle(deck)
    expected: list[list[int]] = [[], [], []]
    for _ in range(3):
        for seat in range(3):
            expected[seat].append(deck.pop())
    assert g.hands == expected


def test_the_first_seat_starts_and_play_passes_to_the_left_in_seat_order() -> None:
    g = engine.new_game("kids", 4, seed=3)
    order = []
    for _ in range(8):
        order.append(g.current_seat)
        g.apply(g.legal_actions()[0])
        if g.is_over:
            break
    assert order[:8] == [0, 1, 2, 3, 0, 1, 2, 3]


def test_each_player_sees_only_their_own_cards() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"], 1: ["zebra", "hippo", "shark"]})
    assert g.observation(0)["hand"] == ["lion", "fox", "wolf"]
    assert g.observation(1)["hand"] == ["zebra", "hippo", "shark"]
    assert "hand" not in g.observation(None)
    assert "zebra" not in str(g.observation(0)["hand"])


# -- playing a card --------------------------------------------------------------------------


def test_an_animal_card_places_a_chip_on_either_of_its_two_spaces() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    assert {"lion@B3", "lion@F6"} <= set(g.legal_actions())
    g.apply("lion@F6")
    assert g.observation(None)["board"][5 * 6 + 5] == 0


def test_an_animal_card_cannot_go_on_a_space_with_another_picture() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    with pytest.raises(IllegalAction) as e:
        g.apply("lion@C3")
    assert e.value.code == "wrong_space"
    assert "B3 and F6" in e.value.message


def test_a_covered_space_cannot_be_played_on() -> None:
    g = kids(2, chips={1: "B3"}, hands={0: ["lion", "fox", "wolf"]})
    with pytest.raises(IllegalAction) as e:
        g.apply("lion@B3")
    assert e.value.code == "space_taken"
    assert g.legal_actions().count("lion@F6") == 1 and "lion@B3" not in g.legal_actions()


def test_the_played_card_goes_face_up_on_the_players_own_discard_pile() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    g.apply("lion@B3")
    obs = g.observation(None)
    assert obs["discard_tops"] == ["lion", None]
    assert obs["discards"] == [["lion"], []]


def test_after_playing_the_player_draws_from_the_top_of_the_deck_and_holds_three_again() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    top = g.deck[-1]
    g.apply("lion@B3")
    assert len(g.hands[0]) == 3
    assert g.hands[0][-1] == top


def test_a_card_not_in_hand_is_refused() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    with pytest.raises(IllegalAction) as e:
        g.apply("zebra@B5")
    assert e.value.code == "card_not_in_hand"
    assert "zebra" in e.value.message


def test_once_placed_a_chip_stays_until_a_dragon_removes_it() -> None:
    # No card other than a Dragon ever offers an occupied space.
    g = kids(2, chips={1: "B3 C3"}, hands={0: ["lion", "whale", "unicorn"]})
    for action in g.legal_actions():
        if action.startswith("dragon@"):
            continue
        assert not action.endswith(("@B3", "@C3"))


# -- dead cards ----------------------------------------------------------------------------


def test_a_card_with_no_open_space_is_dead_and_may_be_exchanged_then_the_turn_goes_on() -> None:
    g = kids(2, chips={1: "B3 F6"}, hands={0: ["lion", "fox", "wolf"]})
    assert g.observation(0)["dead"] == ["lion"]
    assert "dead:lion" in g.legal_actions()
    deck_before = len(g.deck)
    g.apply("dead:lion")
    assert g.current_seat == 0  # the turn goes on
    assert len(g.hands[0]) == 3 and len(g.deck) == deck_before - 1
    assert g.observation(None)["discard_tops"][0] == "lion"


def test_a_live_card_cannot_be_exchanged_as_dead() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    with pytest.raises(IllegalAction) as e:
        g.apply("dead:lion")
    assert e.value.code == "card_not_dead"


def test_a_unicorn_is_dead_only_when_no_space_is_open() -> None:
    from engine.kids_board import PLAYABLE_MASK
    from engine.spaces import space_name

    all_but_one = " ".join(space_name(s, 6) for s in range(42) if PLAYABLE_MASK >> s & 1
                           and s != 13)
    g = kids(2, chips={1: all_but_one}, hands={0: ["unicorn", "fox", "wolf"]})
    assert "unicorn@B3" in g.legal_actions()
    assert "unicorn" not in g.observation(0)["dead"]
    g.chips[1] |= 1 << 13
    g.occupied |= 1 << 13
    assert "unicorn" in g.observation(0)["dead"]


def test_a_dragon_is_dead_when_no_opponent_chip_is_on_the_board() -> None:
    g = kids(2, chips={0: "B3 C3"}, hands={0: ["dragon", "fox", "wolf"]})
    assert g.observation(0)["dead"] == ["dragon"]
    assert not any(a.startswith("dragon@") for a in g.legal_actions())
    assert "dead:dragon" in g.legal_actions()


def test_at_most_a_hands_worth_of_dead_cards_may_be_exchanged_in_one_turn() -> None:
    # Every animal space covered: every animal card is dead, whatever is drawn.
    from engine.kids_board import PLAYABLE_MASK
    from engine.spaces import space_name

    spaces = [space_name(s, 6) for s in range(42) if PLAYABLE_MASK >> s & 1]
    g = kids(2, chips={0: " ".join(spaces[0::2]), 1: " ".join(spaces[1::2])},
             hands={0: ["lion", "fox", "wolf"]}, level="3")
    for _ in range(3):
        g.apply("dead:" + g.observation(0)["dead"][0])
    assert g.observation(0)["exchanges_left"] == 0
    assert g.legal_actions() == ["pass"]
    with pytest.raises(IllegalAction) as e:
        g.apply("dead:" + g.observation(0)["dead"][0])
    assert e.value.code == "no_exchanges_left"
    g.apply("pass")
    assert g.current_seat == 1


def test_pass_is_refused_while_a_card_can_be_played() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    with pytest.raises(IllegalAction) as e:
        g.apply("pass")
    assert e.value.code == "cannot_pass"


def test_a_full_round_of_forced_passes_is_a_draw() -> None:
    from engine.kids_board import PLAYABLE_MASK
    from engine.spaces import space_name

    spaces = [space_name(s, 6) for s in range(42) if PLAYABLE_MASK >> s & 1]
    g = kids(3, chips={0: " ".join(spaces[0::3]), 1: " ".join(spaces[1::3]),
                       2: " ".join(spaces[2::3])}, level="2")
    while not g.is_over:
        g.apply(g.legal_actions()[0])
    assert g.draw and g.winner is None and g.end_reason == "no_moves"
    assert g.history.count("pass") == 3


def test_the_round_counter_restarts_when_a_chip_is_placed() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    g.idle = 1
    g.apply("lion@B3")
    assert g.idle == 0 and not g.is_over


def forced_pass(g: KidsGame) -> None:
    """Exchange dead cards until nothing is left but the pass the rules force, then pass."""
    while g.legal_actions() != ["pass"]:
        assert all(a.startswith("dead:") for a in g.legal_actions())
        g.apply(g.legal_actions()[0])
    g.apply("pass")


def test_turns_lost_to_the_timer_never_make_a_draw() -> None:
    # Mum times out, Emma times out: a round with nothing placed, but nobody was stuck.
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    for _ in range(4):
        g.skip()
    assert not g.is_over and g.idle == 0
    assert g.observation(None)["board"].count(None) == 42


def test_a_timer_skip_breaks_a_round_of_forced_passes() -> None:
    from engine.kids_board import PLAYABLE_MASK
    from engine.spaces import space_name

    spaces = [space_name(s, 6) for s in range(42) if PLAYABLE_MASK >> s & 1]
    g = kids(2, chips={0: " ".join(spaces[0::2]), 1: " ".join(spaces[1::2])}, level="1")
    forced_pass(g)  # the round of forced passes begins
    g.skip()  # the second seat's turn is lost to the timer: it proves nothing
    assert not g.is_over
    forced_pass(g)
    assert not g.is_over  # a new round began after the skip: one forced pass so far
    forced_pass(g)
    assert g.draw and g.end_reason == "no_moves"


def test_a_resignation_is_not_a_pass_of_the_round() -> None:
    from engine.kids_board import PLAYABLE_MASK
    from engine.spaces import space_name

    spaces = [space_name(s, 6) for s in range(42) if PLAYABLE_MASK >> s & 1]
    g = kids(3, chips={0: " ".join(spaces[0::3]), 1: " ".join(spaces[1::3]),
                       2: " ".join(spaces[2::3])}, level="1")
    forced_pass(g)
    g.resign(1)  # on their own turn: not a turn at all
    assert g.idle == 1 and not g.is_over
    forced_pass(g)  # every seat still playing has passed, forced, once
    assert g.draw and g.end_reason == "no_moves"


# -- Unicorn and Dragon ----------------------------------------------------------------------


def test_a_unicorn_places_a_chip_on_any_open_space_and_ends_the_turn() -> None:
    g = kids(2, chips={1: "B3"}, hands={0: ["unicorn", "fox", "wolf"]})
    unicorn = {a for a in g.legal_actions() if a.startswith("unicorn@")}
    assert len(unicorn) == 42 - 4 - 1
    assert "unicorn@B3" not in unicorn and "unicorn@A1" not in unicorn
    g.apply("unicorn@D4")
    assert g.observation(None)["board"][3 * 6 + 3] == 0
    assert g.current_seat == 1


def test_a_unicorn_cannot_go_on_a_covered_space() -> None:
    g = kids(2, chips={1: "B3"}, hands={0: ["unicorn", "fox", "wolf"]})
    with pytest.raises(IllegalAction) as e:
        g.apply("unicorn@B3")
    assert e.value.code == "space_taken"


def test_a_dragon_removes_an_opponents_chip_and_places_none_that_turn() -> None:
    g = kids(2, chips={0: "C3", 1: "B3 D4"}, hands={0: ["dragon", "fox", "wolf"]})
    assert {a for a in g.legal_actions() if a.startswith("dragon@")} == {"dragon@B3",
                                                                          "dragon@D4"}
    g.apply("dragon@B3")
    obs = g.observation(None)
    assert obs["board"][2 * 6 + 1] is None
    assert sum(x is not None for x in obs["board"]) == 2  # C3 and D4: nothing placed
    assert obs["last"]["removed"] == "B3" and obs["last"]["removed_side"] == 1
    assert g.current_seat == 1  # the Dragon completes the turn


def test_a_dragon_cannot_remove_the_players_own_chip() -> None:
    g = kids(2, chips={0: "C3", 1: "B3"}, hands={0: ["dragon", "fox", "wolf"]})
    with pytest.raises(IllegalAction) as e:
        g.apply("dragon@C3")
    assert e.value.code == "own_chip"


def test_a_dragon_cannot_remove_a_teammates_chip() -> None:
    g = kids(4, teams=True, chips={0: "C3", 1: "B3"}, hands={2: ["dragon", "fox", "wolf"]},
             current=2)
    with pytest.raises(IllegalAction) as e:
        g.apply("dragon@C3")  # seat 0's chip: seat 2's teammate
    assert e.value.code == "own_chip" and "team" in e.value.message
    g.apply("dragon@B3")


def test_a_dragon_on_an_empty_space_is_refused() -> None:
    g = kids(2, chips={1: "B3"}, hands={0: ["dragon", "fox", "wolf"]})
    with pytest.raises(IllegalAction) as e:
        g.apply("dragon@D4")
    assert e.value.code == "no_chip"


def test_the_space_a_dragon_empties_stays_empty_until_the_next_player() -> None:
    g = kids(2, chips={1: "B3"}, hands={0: ["dragon", "lion", "wolf"]})
    g.apply("dragon@B3")
    # It is no longer seat 0's turn: seat 0 cannot fill B3 with its lion this turn.
    assert g.current_seat == 1
    assert g.observation(None)["board"][13] is None


# -- free corners and winning ----------------------------------------------------------------


def test_no_chip_is_ever_placed_on_a_free_corner() -> None:
    g = kids(2, hands={0: ["unicorn", "fox", "wolf"]})
    assert not any(a.endswith(("@A1", "@F1", "@A7", "@F7")) for a in g.legal_actions())
    with pytest.raises(IllegalAction) as e:
        g.apply("unicorn@A1")
    assert e.value.code == "free_corner"


@pytest.mark.parametrize(
    ("chips", "move", "line"),
    [
        ("A2 B2 C2", "camel@C5", None),  # the other camel space, C5, is not in the row
        ("A2 B2 C2", "camel@D2", "A2 B2 C2 D2"),  # across
        ("B2 B3 B4", "zebra@B5", "B2 B3 B4 B5"),  # down
        ("B2 C3 D4", "kangaroo@E5", "B2 C3 D4 E5"),  # diagonal down-right
        ("E2 D3 C4", "zebra@B5", "B5 C4 D3 E2"),  # diagonal up-right
    ],
)
def test_four_in_a_row_across_down_or_diagonally_wins(chips: str, move: str,
                                                     line: str | None) -> None:
    card = Action.parse(move).what
    g = kids(2, chips={0: chips}, hands={0: [card, "wolf", "lion"]})
    g.apply(move)
    if line is None:
        assert not g.is_over
    else:
        assert g.winner == 0 and g.end_reason == "sequence"
        assert sorted(g.observation(None)["winning_line"]) == sorted(line.split())
        assert g.current_seat is None


def test_three_in_a_row_is_not_a_sequence() -> None:
    g = kids(2, chips={0: "B2 C2"}, hands={0: ["camel", "wolf", "lion"]})
    g.apply("camel@D2")
    assert not g.is_over


def test_a_sequence_must_be_all_the_players_own_colour() -> None:
    g = kids(2, chips={0: "A2 B2", 1: "C2"}, hands={0: ["camel", "wolf", "lion"]})
    g.apply("camel@D2")
    assert not g.is_over


def test_a_free_corner_counts_as_the_players_chip_so_three_chips_make_a_sequence() -> None:
    g = kids(2, chips={0: "B1 C1"}, hands={0: ["gorilla", "wolf", "lion"]})
    g.apply("gorilla@D1")
    assert g.winner == 0
    assert "A1" in g.observation(None)["winning_line"]


def test_more_than_one_player_may_use_the_same_corner() -> None:
    g = kids(2, chips={0: "B1 C1", 1: "A2 A3 A4"}, hands={1: ["gorilla", "wolf", "lion"]},
             current=1)
    g.chips[1] ^= 1 << 18  # take A4 back off: blue has A2 A3 and the A1 corner
    g.occupied ^= 1 << 18
    set_hand(g, 1, ["giraffe", "wolf", "lion"])
    g.apply("giraffe@A4")  # A1 (corner) A2 A3 A4: blue uses the corner red also uses
    assert g.winner == 1


def test_teammates_chips_make_one_sequence_together() -> None:
    g = kids(4, teams=True, chips={0: "A2 B2 C2"}, hands={2: ["camel", "wolf", "lion"]},
             current=2)
    g.apply("camel@D2")
    assert g.winner == 0 and g.sides[0] == [0, 2]


def test_the_first_sequence_wins_at_once() -> None:
    g = kids(2, chips={0: "A2 B2 C2"}, hands={0: ["camel", "wolf", "lion"]})
    hand_before = list(g.hands[0])
    g.apply("camel@D2")
    assert g.is_over and g.legal_actions() == []
    assert len(g.hands[0]) == len(hand_before) - 1  # no draw after the winning move
    with pytest.raises(IllegalAction) as e:
        g.apply("wolf@A3")
    assert e.value.code == "game_over"


# -- the deck runs out ----------------------------------------------------------------------


def test_when_the_draw_deck_runs_out_all_discard_piles_are_shuffled_into_a_new_deck() -> None:
    g = kids(2, hands={0: ["lion", "fox", "wolf"]})
    # Move all but one deck card onto the discard piles.
    while len(g.deck) > 1:
        g.discards[len(g.deck) % 2].append(g.deck.pop())
    on_piles = sum(map(len, g.discards))
    g.apply("lion@B3")  # draws the last card, then the piles become the deck
    assert g.discards == [[], []]
    assert len(g.deck) == on_piles + 1  # the lion just played is shuffled in too
    assert card_count(g) == 42


# -- beginners -----------------------------------------------------------------------------


@pytest.mark.parametrize(("level", "hand"), [("1", 1), ("2", 2), ("3", 3), ("normal", 3)])
def test_beginners_levels_deal_one_two_or_three_cards(level: str, hand: int) -> None:
    g = engine.new_game("kids", 2, seed=4, level=level)
    assert isinstance(g, KidsGame)
    assert [len(h) for h in g.hands] == [hand, hand]
    assert g.observation(0)["hand_size"] == hand


@pytest.mark.parametrize("level", ["1", "2", "3"])
def test_beginners_levels_play_without_unicorns_and_dragons(level: str) -> None:
    g = engine.new_game("kids", 2, seed=4, level=level)
    assert isinstance(g, KidsGame)
    everything = g.deck + [c for h in g.hands for c in h]
    assert len(everything) == 38
    assert not {19, 20} & set(everything)


def test_normal_level_adds_the_unicorns_and_dragons_back() -> None:
    g = engine.new_game("kids", 2, seed=4, level="normal")
    assert isinstance(g, KidsGame)
    everything = g.deck + [c for h in g.hands for c in h]
    assert Counter(everything)[19] == 2 and Counter(everything)[20] == 2


def test_a_beginner_keeps_one_card_after_each_turn() -> None:
    g = engine.new_game("kids", 2, seed=4, level="1")
    for _ in range(6):
        seat = g.current_seat
        assert seat is not None
        g.apply(g.legal_actions()[0])
        if g.is_over:
            break
        assert len(g.observation(seat)["hand"]) == 1
