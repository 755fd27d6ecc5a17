"""A hint is the medium computer player's move, with its reason, on a small board."""

from __future__ import annotations

import io

import pytest
from PIL import Image

import engine
from cogs.hints import reason_text
from engine.action import Action
from engine.ai import Explanation, explain
from manager.computer import suggest
from render.geometry import geometry_for
from render.hint import HINT_CELL, hint_png
from render.marks import MARK
from tests.ai.positions import dice_position, kids_position
from tests.render.helpers import mark_probe, ring_probe


def kids_position_with_a_win() -> dict:  # type: ignore[type-arg]
    game = engine.new_game("kids", 2, 5)
    for _ in range(9):
        game.apply(game.legal_actions()[0])
    return game.observation(game.current_seat)


def test_the_hint_takes_a_win_when_there_is_one() -> None:
    obs = kids_position_with_a_win()
    hint = suggest(obs, seed=3)
    action, why = hint.action, hint.why
    assert action in obs["legal"] and why.code == "completes_sequence"
    assert reason_text(why, "en").startswith("it completes your sequence (A1, B1, C1, D1)")
    assert "du vinner" in reason_text(why, "no")


def test_the_hint_picture_marks_the_space_with_the_choice_mark_1() -> None:
    obs = kids_position_with_a_win()
    action = suggest(obs, seed=3).action
    png = hint_png(obs, action, names=["Alice", "Bob"])
    assert png is not None
    image = Image.open(io.BytesIO(png)).convert("RGB")
    geo = geometry_for(obs, HINT_CELL)
    index = geo.index(Action.parse(action).space or "")
    assert index is not None
    # The numbered badge sits in the space's corner and the ring runs along its edge.
    assert image.getpixel(mark_probe(geo, index)) == MARK
    assert image.getpixel(ring_probe(geo, index)) == MARK
    assert hint_png(obs, "dead:lion", names=["Alice", "Bob"]) is None


@pytest.mark.parametrize("lang", ["en", "no"])
def test_every_reason_code_of_the_computer_players_has_words(lang: str) -> None:
    codes = ("completes_sequence", "blocks_line", "removes_threat", "wild_for_line",
             "extends_line", "starts_line", "exchanges_dead_card", "only_move",
             "no_playable_card", "no_move_for_roll", "roll_dice")
    for code in codes:
        text = reason_text(Explanation(code, {"colour": "red", "card": "lion", "length": 3,
                                              "space": "B2", "total": 10, "line": ["A1"]}),
                           lang)
        assert text and "{" not in text and text != reason_text(Explanation("?"), lang)


@pytest.mark.parametrize("lang", ["en", "no"])
def test_every_reason_code_the_engine_can_give_has_its_own_words(lang: str) -> None:
    from tests.ai.test_explain import CODES

    for code in CODES:
        text = reason_text(Explanation(code, {"colour": "red", "card": "lion", "length": 3,
                                              "size": 6, "next_to": "C3", "space": "B2",
                                              "total": 10, "line": ["A1"]}), lang)
        assert text and "{" not in text and text != reason_text(Explanation("?"), lang), code


def test_a_line_with_gaps_is_read_as_chips_of_a_line_not_a_row() -> None:
    # Issue 16: A5 B5 _ D5 _ F5 was read out as "it makes your row 4 long".
    game = dice_position([["A5", "B5", "D5"], ["A1"]], (2, 4))
    why = explain(game.observation(0), "place@F5")
    en, no = reason_text(why, "en"), reason_text(why, "no")
    assert en == "it gives you 4 of the 6 spaces in one line."
    assert no == "den gir deg 4 av de 6 feltene i én linje."
    assert "row" not in en and "på rad" not in no


def test_a_second_chip_is_read_as_next_to_the_first() -> None:
    game = kids_position([["C3"], ["E7"]], ["wolf", "lion", "whale"])
    why = explain(game.observation(0), "wolf@D3")
    assert reason_text(why, "en") == "it goes next to your chip on C3, to start a row."
    assert "row 2" not in reason_text(why, "en") and "C3" in reason_text(why, "no")
