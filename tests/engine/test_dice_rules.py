"""Sequence Dice, rule by rule (seed 004, in Norwegian, and the decisions in docs/RULES-MAP.md)."""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from engine import IllegalAction
from engine.dice import DiceGame
from engine.dice_board import LAYOUT, MAX_TURNS

from .positions import dice

# -- the board ------------------------------------------------------------------------------


def test_board_has_four_spaces_for_each_number_2_to_9_and_12_and_none_for_10_or_11() -> None:
    assert len(LAYOUT) == 36
    assert Counter(LAYOUT) == {n: 4 for n in (2, 3, 4, 5, 6, 7, 8, 9, 12)}
    assert [LAYOUT[i] for i in (0, 5, 30, 35)] == [2, 2, 2, 2]  # the corners are 2s
    assert [LAYOUT[i] for i in (14, 15, 20, 21)] == [12, 12, 12, 12]  # the centre is 12s


def test_dice_has_no_free_spaces_corners_are_ordinary_twos() -> None:
    g = dice(2, chips={0: "B1 C1 D1 E1"}, roll=(1, 1))
    g.apply("place@A1")  # a corner takes a chip like any 2
    assert g.observation(None)["board"][0] == 0
    # and the corner does not count for anyone: B1..E1 + A1 is 5, not 6, in a row
    assert not g.is_over


# -- players and colours ----------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "colours"), [(2, ["green", "blue"]),
                                                 (3, ["green", "blue", "red"])])
def test_two_or_three_players_each_have_their_own_colour(seats: int,
                                                         colours: list[str]) -> None:
    obs = engine.new_game("dice", seats, seed=1).observation(None)
    assert obs["colours"] == colours
    assert obs["sides"] == [[s] for s in range(seats)]


def test_four_players_play_first_and_third_against_second_and_fourth() -> None:
    g = engine.new_game("dice", 4, seed=1)
    assert g.sides == [[0, 2], [1, 3]]
    assert g.observation(None)["colours"] == ["green", "blue"]


def test_four_players_without_teams_are_refused_for_want_of_colours() -> None:
    with pytest.raises(engine.InvalidOptions) as e:
        engine.new_game("dice", 4, seed=1, teams=False)
    assert e.value.code == "four_need_teams"


# -- who starts -------------------------------------------------------------------------------


def test_everyone_rolls_and_the_highest_total_starts() -> None:
    for seed in range(40):
        g = engine.new_game("dice", 3, seed=seed)
        rounds = g.observation(None)["opening_rolls"]
        final = rounds[-1]
        totals = {seat: a + b for seat, a, b in final}
        best = max(totals.values())
        assert [s for s, t in totals.items() if t == best] == [g.current_seat]
        assert {seat for seat, _, _ in rounds[0]} == {0, 1, 2}


def test_a_tie_for_the_highest_roll_is_rolled_again_by_the_tied_players_only() -> None:
    tied = None
    for seed in range(200):
        g = engine.new_game("dice", 4, seed=seed)
        rounds = g.observation(None)["opening_rolls"]
        if len(rounds) > 1:
            tied = rounds
            break
    assert tied is not None, "no tie in 200 seeds"
    first = {seat: a + b for seat, a, b in tied[0]}
    best = max(first.values())
    assert {seat for seat, _, _ in tied[1]} == {s for s, t in first.items() if t == best}


# -- a turn -----------------------------------------------------------------------------------


def test_a_turn_starts_with_a_roll_and_nothing_else() -> None:
    g = dice(2)
    assert g.legal_actions() == ["roll"]
    with pytest.raises(IllegalAction) as e:
        g.apply("place@A1")
    assert e.value.code == "must_roll"


def test_rolling_twice_is_refused() -> None:
    g = dice(2, roll=(3, 4))
    with pytest.raises(IllegalAction) as e:
        g.apply("roll")
    assert e.value.code == "already_rolled"


def test_the_roll_places_a_chip_on_an_empty_space_showing_the_total() -> None:
    g = dice(2, chips={1: "B2"}, roll=(3, 4))  # 7: B2 E2 B5 E5, B2 covered
    assert g.legal_actions() == ["place@B5", "place@E2", "place@E5"]
    g.apply("place@E5")
    assert g.observation(None)["board"][4 * 6 + 4] == 0
    assert g.current_seat == 1


def test_a_space_with_another_number_is_refused() -> None:
    g = dice(2, roll=(3, 4))
    with pytest.raises(IllegalAction) as e:
        g.apply("place@A1")
    assert e.value.code == "wrong_number" and "rolled 7" in e.value.message


def test_when_all_four_spaces_are_covered_an_opponents_chip_there_is_replaced() -> None:
    g = dice(2, chips={0: "B2", 1: "E2 B5 E5"}, roll=(3, 4))
    assert g.legal_actions() == ["replace@B5", "replace@E2", "replace@E5"]
    g.apply("replace@E2")
    obs = g.observation(None)
    assert obs["board"][1 * 6 + 4] == 0
    assert obs["last"]["removed"] == "E2" and obs["last"]["removed_side"] == 1
    assert g.current_seat == 1  # then the turn is over


def test_replacing_is_refused_while_a_space_with_that_number_is_empty() -> None:
    g = dice(2, chips={1: "E2 B5"}, roll=(3, 4))
    with pytest.raises(IllegalAction) as e:
        g.apply("replace@E2")
    assert e.value.code == "space_still_open"


def test_twos_and_twelves_can_be_replaced_when_all_four_are_covered() -> None:
    g = dice(2, chips={1: "C3 D3 C4 D4"}, roll=(6, 6))
    assert g.legal_actions() == ["replace@C3", "replace@C4", "replace@D3", "replace@D4"]
    g = dice(2, chips={1: "A1 F1 A6 F6"}, roll=(1, 1))
    assert g.legal_actions() == ["replace@A1", "replace@A6", "replace@F1", "replace@F6"]


def test_when_all_four_spaces_are_the_players_own_nothing_happens_and_the_turn_ends() -> None:
    g = dice(2, chips={0: "B2 E2 B5 E5"}, roll=(3, 4))
    assert g.legal_actions() == ["pass"]
    g.apply("pass")
    assert g.current_seat == 1
    assert bin(g.chips[0]).count("1") == 4


def test_a_teammates_four_spaces_count_as_the_players_own() -> None:
    g = dice(4, chips={0: "B2 E2 B5 E5"}, roll=(3, 4), current=2)
    assert g.legal_actions() == ["pass"]


def test_pass_is_refused_when_the_roll_can_be_used() -> None:
    g = dice(2, roll=(3, 4))
    with pytest.raises(IllegalAction) as e:
        g.apply("pass")
    assert e.value.code == "cannot_pass"


# -- 10, 11, 2 and 12 --------------------------------------------------------------------------


def test_a_ten_must_remove_an_opponents_chip_and_ends_the_turn() -> None:
    g = dice(2, chips={0: "C2", 1: "B2 D4"}, roll=(4, 6))
    assert g.legal_actions() == ["remove@B2"]  # D4 is a 12: protected
    g.apply("remove@B2")
    assert g.observation(None)["board"][1 * 6 + 1] is None
    assert g.current_seat == 1


def test_a_ten_never_removes_a_chip_from_a_two_or_a_twelve() -> None:
    g = dice(2, chips={1: "A1 C3"}, roll=(5, 5))
    assert g.legal_actions() == ["pass"]
    with pytest.raises(IllegalAction) as e:
        g.apply("remove@A1")
    assert e.value.code == "protected_space"


def test_a_ten_cannot_remove_the_players_own_chip_or_place_one() -> None:
    g = dice(2, chips={0: "B2", 1: "C2"}, roll=(5, 5))
    with pytest.raises(IllegalAction) as e:
        g.apply("remove@B2")
    assert e.value.code == "own_chip"
    with pytest.raises(IllegalAction) as e:
        g.apply("place@D2")
    assert e.value.code == "must_remove"


def test_a_ten_with_no_chip_to_remove_ends_the_turn() -> None:
    g = dice(2, roll=(4, 6))
    assert g.legal_actions() == ["pass"]
    g.apply("pass")
    assert g.current_seat == 1


def test_only_a_ten_removes() -> None:
    g = dice(2, chips={1: "B2"}, roll=(3, 4))
    with pytest.raises(IllegalAction) as e:
        g.apply("remove@B2")
    assert e.value.code == "remove_needs_ten"


def test_an_eleven_places_a_chip_on_any_empty_space() -> None:
    g = dice(2, chips={1: "B2"}, roll=(5, 6))
    legal = g.legal_actions()
    assert len(legal) == 35 and all(a.startswith("place@") for a in legal)
    g.apply("place@C3")  # a 12 space: any empty space will do
    assert g.observation(None)["board"][14] == 0


def test_an_eleven_on_a_full_board_replaces_any_opponent_chip() -> None:
    from engine.spaces import space_name

    spaces = [space_name(s, 6) for s in range(36)]
    # A full board with no line of 6 for anyone: alternate by column pairs.
    green = " ".join(s for i, s in enumerate(spaces) if (i % 6 // 2 + i // 6) % 2 == 0)
    blue = " ".join(s for i, s in enumerate(spaces) if (i % 6 // 2 + i // 6) % 2 == 1)
    g = dice(2, chips={0: green, 1: blue}, roll=(5, 6))
    legal = g.legal_actions()
    assert legal and all(a.startswith("replace@") for a in legal)
    assert len(legal) == blue.count(" ") + 1  # any of blue's chips, 2s and 12s included


@pytest.mark.parametrize("roll", [(1, 1), (6, 6)])
def test_after_a_two_or_a_twelve_the_same_player_rolls_again(roll: tuple[int, int]) -> None:
    g = dice(2, roll=roll)
    g.apply(g.legal_actions()[0])
    assert g.current_seat == 0 and g.legal_actions() == ["roll"]
    assert g.turns == 0  # the extra roll is part of the same turn


def test_the_extra_roll_is_granted_even_when_no_chip_could_be_placed() -> None:
    g = dice(2, chips={0: "A1 F1 A6 F6"}, roll=(1, 1))
    g.apply("pass")
    assert g.current_seat == 0 and g.legal_actions() == ["roll"]


# -- winning ----------------------------------------------------------------------------------


def test_six_in_a_row_is_the_default_for_two_sides_and_five_for_three() -> None:
    assert engine.new_game("dice", 2, seed=1).options["sequence_length"] == 6
    assert engine.new_game("dice", 4, seed=1).options["sequence_length"] == 6
    assert engine.new_game("dice", 3, seed=1).options["sequence_length"] == 5


def test_the_host_may_choose_five_or_six_in_a_row() -> None:
    assert engine.new_game("dice", 2, seed=1, sequence_length=5).options[
        "sequence_length"] == 5
    assert engine.new_game("dice", 3, seed=1, sequence_length=6).options[
        "sequence_length"] == 6


def test_five_in_a_row_of_own_chips_wins_when_playing_to_five() -> None:
    g = dice(3, chips={0: "A2 B2 C2 D2"}, roll=(3, 4))  # 7 on E2
    g.apply("place@E2")
    assert g.winner == 0
    assert g.observation(None)["winning_line"] == ["A2", "B2", "C2", "D2", "E2"]


def test_five_in_a_row_is_not_enough_when_playing_to_six() -> None:
    g = dice(2, chips={0: "A2 B2 C2 D2"}, roll=(3, 4))
    g.apply("place@E2")
    assert not g.is_over


def test_six_in_a_row_wins_when_playing_to_six() -> None:
    g = dice(2, chips={0: "A2 B2 C2 D2 F2"}, roll=(3, 4))
    g.apply("place@E2")
    assert g.winner == 0


@pytest.mark.parametrize(("chips", "space", "roll"), [
    ("B1 B2 B3 B4", "B5", (3, 4)),  # down column B: 3 7 9 8 [7]
    ("A1 B2 C3 D4", "E5", (3, 4)),  # diagonal: 2 7 12 12 [7]
    ("F1 E2 D3 C4", "B5", (3, 4)),  # other diagonal: 2 7 12 12 [7]
])
def test_five_in_a_row_counts_down_and_diagonally(chips: str, space: str,
                                                  roll: tuple[int, int]) -> None:
    g = dice(3, chips={0: chips}, roll=roll)
    g.apply(f"place@{space}")
    assert g.winner == 0


def test_a_line_broken_by_an_opponent_chip_does_not_win() -> None:
    g = dice(3, chips={0: "A2 B2 D2", 1: "C2"}, roll=(3, 4))
    g.apply("place@E2")
    assert not g.is_over


def test_replacing_can_complete_a_sequence() -> None:
    g = dice(3, chips={0: "A2 B2 C2 D2", 1: "E2 B5 E5"}, roll=(3, 4))
    g.chips[0] |= 1 << 7  # B2 is ours: all four 7s covered
    g.apply("replace@E2")
    assert g.winner == 0


def test_teammates_chips_make_one_sequence() -> None:
    g = dice(4, chips={0: "A2 B2 C2 D2 F2"}, roll=(3, 4), current=2)
    g.apply("place@E2")
    assert g.winner == 0 and g.sides[0] == [0, 2]


def test_five_hundred_turns_without_a_winner_is_a_draw() -> None:
    g = dice(2)
    g.turns = MAX_TURNS - 1
    g.apply("roll")
    while g.current_seat == 0 and not g.is_over:
        g.apply(g.legal_actions()[0])
        if g.current_seat == 0 and not g.is_over:
            g.apply("roll")
    assert g.draw and g.end_reason == "turn_limit" and g.winner is None


def test_play_passes_in_seat_order_from_the_starter() -> None:
    g = engine.new_game("dice", 3, seed=11)
    assert isinstance(g, DiceGame)
    start = g.current_seat
    assert start is not None
    seen = []
    while len(seen) < 4 and not g.is_over:
        seat = g.current_seat
        g.apply("roll")
        g.apply(g.legal_actions()[0])
        if g.current_seat != seat:
            seen.append(seat)
    assert seen[:3] == [start, (start + 1) % 3, (start + 2) % 3][: len(seen[:3])]
