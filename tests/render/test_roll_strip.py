"""The roll on a Sequence Dice choice picture (issue 25): the roller sees their two dice
above the numbered spaces, and the board under them is the same picture as without."""

from __future__ import annotations

from typing import Any

import engine
from engine.action import Action
from render.choice import choice_png
from render.roll_strip import with_roll

from .helpers import decode


def _rolled() -> tuple[dict[str, Any], list[str]]:
    game = engine.new_game("dice", 2, 3)
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    game.apply("roll")
    obs = game.observation(game.current_seat)
    return obs, [s for a in obs["legal"] if (s := Action.parse(a).space)]


def _dark(image: Any, box: tuple[int, int, int, int]) -> int:
    """How many near-black pixels (the dice's outline and pips, the digits) are in box."""
    part = image.convert("RGB").crop(box)
    return sum(1 for r, g, b in part.get_flattened_data() if r + g + b < 200)


def test_the_dice_are_drawn_above_the_numbered_board() -> None:
    obs, spaces = _rolled()
    plain = decode(choice_png(obs, spaces))
    rolled = decode(choice_png(obs, spaces, dice=obs["last_roll"]))
    strip = rolled.height - plain.height
    assert rolled.width == plain.width and strip >= plain.width * 0.15
    assert _dark(rolled, (0, 0, rolled.width, strip)) > 200, "two dice and a total"
    board = rolled.convert("RGB").crop((0, strip, rolled.width, rolled.height))
    assert board.tobytes() == plain.convert("RGB").tobytes(), "the board is unchanged"


def test_each_roll_draws_its_own_faces() -> None:
    obs, spaces = _rolled()
    one = decode(choice_png(obs, spaces, dice=[1, 1]))
    six = decode(choice_png(obs, spaces, dice=[6, 6]))
    strip = one.height - decode(choice_png(obs, spaces)).height
    box = (0, 0, one.width, strip)
    assert _dark(six, box) > _dark(one, box), "twelve pips are more ink than two"


def test_a_picture_that_is_not_a_roll_is_left_as_it_is() -> None:
    obs, spaces = _rolled()
    plain = decode(choice_png(obs, spaces))
    assert with_roll(plain, [4]) is plain
    assert with_roll(plain.convert("RGB"), [4, 2]).size == plain.size
