"""Computer players take a win when they have one and stop an opponent's win when they can."""

from __future__ import annotations

import pytest

from engine.ai import make_agent
from tests.ai.positions import dice_position, kids_position

SMALL = {"iterations": 40, "time_limit": None}


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("seed", range(4))
def test_kids_player_completes_its_sequence_with_the_free_corner(level: str, seed: int) -> None:
    # Red holds B1 and C1; A1 is a free corner: the gorilla on D1 makes four in a row.
    game = kids_position([["B1", "C1"], ["B3", "C3"]], ["lion", "gorilla", "whale"], seed)
    action = make_agent(level, seed, **SMALL).choose(game.observation(0))
    assert action == "gorilla@D1"


@pytest.mark.parametrize("seed", range(4))
def test_hard_kids_player_uses_a_unicorn_to_win(seed: int) -> None:
    game = kids_position([["B2", "C3"], ["B3", "C2"]], ["lion", "unicorn", "moose"], seed)
    # A1 (corner), B2, C3: D4 finishes the diagonal; no animal card fits it.
    action = make_agent("hard", seed, **SMALL).choose(game.observation(0))
    assert action == "unicorn@D4"


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("seed", range(4))
def test_kids_player_blocks_a_line_that_wins_next_turn(level: str, seed: int) -> None:
    # Blue holds A2 and A3 under the free corner A1: A4 (giraffe) would win for Blue.
    game = kids_position([["C3", "E5"], ["A2", "A3"]], ["lion", "giraffe", "penguin"], seed)
    action = make_agent(level, seed, **SMALL).choose(game.observation(0))
    assert action == "giraffe@A4"


@pytest.mark.parametrize("level", ["medium", "hard"])
@pytest.mark.parametrize("seed", range(4))
def test_kids_player_sends_a_dragon_at_a_winning_line(level: str, seed: int) -> None:
    # Blue threatens A4; Red has no giraffe and no Unicorn, but a Dragon.
    game = kids_position([["C3", "E5"], ["A2", "A3", "F6"]], ["lion", "dragon", "penguin"],
                         seed)
    action = make_agent(level, seed, **SMALL).choose(game.observation(0))
    assert action in ("dragon@A2", "dragon@A3")


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_dice_player_completes_six_in_a_row(level: str) -> None:
    # Green holds A1..E1; F1 is a 2 and Red rolled 1+1.
    game = dice_position([["A1", "B1", "C1", "D1", "E1"], ["A3", "B4"]], (1, 1))
    action = make_agent(level, 1, **SMALL).choose(game.observation(0))
    assert action == "place@F1"


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_dice_player_blocks_five_with_an_eleven(level: str) -> None:
    # Blue holds B2..F2 (a 7 8 9 7 3 row); A2 (a 6) would give Blue six in a row.
    game = dice_position([["C5", "D4"], ["B2", "C2", "D2", "E2", "F2"]], (5, 6))
    action = make_agent(level, 1, **SMALL).choose(game.observation(0))
    assert action == "place@A2"


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_dice_player_removes_a_chip_of_a_winning_line_with_a_ten(level: str) -> None:
    game = dice_position([["C5", "D4"], ["B2", "C2", "D2", "E2", "F2"]], (4, 6))
    action = make_agent(level, 1, **SMALL).choose(game.observation(0))
    assert action in {f"remove@{s}" for s in ("B2", "C2", "D2", "E2", "F2")}
