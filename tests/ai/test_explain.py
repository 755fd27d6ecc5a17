"""A hint says why a move is good, as a reason code a child's sentence can be built from."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.action import Action
from engine.ai import explain, make_agent
from tests.ai.positions import TABLES, dice_position, kids_position, random_position

CODES = {"completes_sequence", "blocks_line", "blocks_row", "blocks_spread",
         "removes_threat", "removes_from_line", "removes_chip", "wild_for_line",
         "extends_line", "fills_line", "joins_chip", "starts_at_corner", "starts_line",
         "fills_space", "exchanges_dead_card", "only_move", "no_playable_card",
         "no_move_for_roll", "roll_dice"}


def test_winning_move_completes_the_sequence_with_the_free_corner() -> None:
    game = kids_position([["B1", "C1"], ["B3", "C3"]], ["lion", "gorilla", "whale"])
    why = explain(game.observation(0), "gorilla@D1")
    assert why.code == "completes_sequence"
    assert why.params["uses_corner"] is True
    assert why.params["line"] == ["A1", "B1", "C1", "D1"]


def test_block_names_the_colour_and_length_of_the_line() -> None:
    game = kids_position([["C3", "E5"], ["A2", "A3"]], ["lion", "giraffe", "penguin"])
    why = explain(game.observation(0), "giraffe@A4")
    assert why.code == "blocks_line"
    assert why.params == {"colour": "blue", "length": 3, "card": "giraffe", "space": "A4"}


def test_dragon_removes_the_threatening_chip() -> None:
    game = kids_position([["C3", "E5"], ["A2", "A3"]], ["lion", "dragon", "penguin"])
    why = explain(game.observation(0), "dragon@A3")
    assert why.code == "removes_threat"
    assert why.params["colour"] == "blue" and why.params["length"] == 3


def test_unicorn_building_a_line_is_a_wild_card_for_it() -> None:
    game = kids_position([["B2"], ["E7"]], ["unicorn", "lion", "whale"])
    why = explain(game.observation(0), "unicorn@C3")
    assert why.code == "wild_for_line"
    assert why.params["length"] == 3 and why.params["uses_corner"] is True


def test_animal_next_to_own_chips_extends_the_line() -> None:
    game = kids_position([["B3", "C3"], ["E7"]], ["wolf", "lion", "whale"])
    why = explain(game.observation(0), "wolf@D3")
    assert why.code == "extends_line" and why.params["length"] == 3


def test_dead_card_exchange_pass_and_roll_have_their_own_codes() -> None:
    game = kids_position([["C3"], ["E7"]], ["wolf", "lion", "whale"])
    assert explain(game.observation(0), "dead:whale").to_dict() == {
        "code": "exchanges_dead_card", "params": {"card": "whale"}}
    assert explain(game.observation(0), "pass").code == "no_playable_card"
    dice = random_position("dice", 2, {}, 1, 0)
    assert explain(dice.observation(dice.current_seat), "roll").code == "roll_dice"


def test_dice_ten_removes_a_threat_and_eleven_is_wild() -> None:
    game = dice_position([["C5", "D4"], ["B2", "C2", "D2", "E2", "F2"]], (4, 6))
    why = explain(game.observation(0), "remove@C2")
    assert why.code == "removes_threat"
    assert why.params["colour"] == "blue" and why.params["length"] == 5
    game = dice_position([["A1", "B2", "C3"], ["F2"]], (5, 6))
    why = explain(game.observation(0), "place@D4")
    assert why.code == "wild_for_line" and why.params["length"] == 4


@pytest.mark.parametrize(("game", "seats", "options"), TABLES)
def test_every_legal_action_has_a_known_reason_with_json_params(
        game: str, seats: int, options: dict[str, Any]) -> None:
    for seed in range(3):
        g = random_position(game, seats, options, seed, 5 + 9 * seed)
        if g.is_over:
            continue
        obs = g.observation(g.current_seat)
        agent = make_agent("medium", seed)
        for action in obs["legal"]:
            why = agent.explain(obs, action)
            assert why.code in CODES
            assert json.loads(json.dumps(why.to_dict())) == why.to_dict()


def test_a_dice_roll_that_allows_nothing_says_so() -> None:
    # A 10 with no opponent chip to take off (none, or only on 2s and 12s).
    game = dice_position([["C5"], ["A1"]], (4, 6))
    obs = game.observation(0)
    assert obs["legal"] == ["pass"]
    why = explain(obs, "pass")
    assert why.code == "no_move_for_roll" and why.params == {"total": 10}


def test_a_line_with_gaps_is_not_called_a_row_of_that_length() -> None:
    # Issue 16: A5 B5 _ D5 _ F5 was "your row 4 long"; the four chips are not 4 in a row.
    game = dice_position([["A5", "B5", "D5"], ["A1"]], (2, 4))
    obs = game.observation(0)
    assert "place@F5" in obs["legal"] or "place@f5" in obs["legal"]
    why = explain(obs, "place@F5")
    assert why.code == "fills_line"
    assert why.params["length"] == 4 and why.params["size"] == 6


def test_a_row_is_only_called_a_row_when_its_chips_touch() -> None:
    game = dice_position([["A5", "B5", "C5"], ["A1"]], (3, 5))
    why = explain(game.observation(0), "place@D5")
    assert why.code == "extends_line" and why.params["length"] == 4


def test_a_block_of_a_line_with_gaps_does_not_say_in_a_row() -> None:
    game = dice_position([["F1"], ["A5", "C5"]], (5, 2), to_move=0)
    why = explain(game.observation(0), "place@B5")
    assert why.code == "blocks_spread"
    assert why.params["colour"] == "blue" and why.params["length"] == 2
    assert why.params["size"] == 6


def test_a_second_chip_next_to_the_first_says_it_joins_that_chip() -> None:
    # Item 17: "makes your row 2 long" says nothing useful.
    game = kids_position([["C3"], ["E7"]], ["wolf", "lion", "whale"])
    legal = game.observation(0)["legal"]
    nxt = next(a for a in legal if a.startswith("wolf@") and a[5:] in ("D3", "d3"))
    why = explain(game.observation(0), nxt)
    assert why.code == "joins_chip" and why.params["next_to"] == "C3"


def test_a_gapped_threat_is_blocked_as_a_win_not_as_a_row() -> None:
    # Blue holds A1 B1 _ D1 (with the corner): C1 is where blue would win.
    game = kids_position([["E5"], ["B1", "D1"]], ["lion", "unicorn", "penguin"])
    why = explain(game.observation(0), "unicorn@C1")
    assert why.code == "blocks_line" and why.params["colour"] == "blue"


def _run_through(chips: int, space: int, line: list[int]) -> int:
    """How many of ``line``'s spaces next to each other, through ``space``, ``chips`` hold."""
    at = line.index(space)
    left = at
    while left > 0 and chips >> line[left - 1] & 1:
        left -= 1
    right = at
    while right < len(line) - 1 and chips >> line[right + 1] & 1:
        right += 1
    return right - left + 1


ROW_CLAIMS = {"extends_line", "wild_for_line", "joins_chip", "removes_threat"}


@pytest.mark.parametrize(("game", "seats", "options"), TABLES)
def test_every_row_a_reason_names_is_that_many_chips_next_to_each_other(
        game: str, seats: int, options: dict[str, Any]) -> None:
    from engine.ai.lines import KIDS_BOARD, dice_board
    from engine.spaces import bits, parse_space

    for seed in range(4):
        g = random_position(game, seats, options, seed, 6 + 7 * seed)
        if g.is_over:
            continue
        obs = g.observation(g.current_seat)
        board = KIDS_BOARD if game == "kids" else dice_board(g.sequence_length)  # type: ignore[attr-defined]
        side = g.side_of[g.current_seat]
        for action in obs["legal"]:
            why = explain(obs, action)
            if why.code not in ROW_CLAIMS:
                continue
            space = parse_space(Action.parse(action).space or "", g.width, g.height)
            if why.code == "removes_threat":  # the chip taken off, with its own side's
                holder = next(c for c in g.chips if c >> space & 1)
                own = holder | board.wild
            else:
                own = (g.chips[side] | board.wild) | 1 << space
            runs = [_run_through(own, space, bits(line)) for line in board.through[space]]
            assert why.params["length"] in runs, (action, why)
