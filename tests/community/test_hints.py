"""A hint is the medium computer player's move, with its reason, on a small board."""

from __future__ import annotations

import io

import pytest
from PIL import Image

import engine
from cogs.hints import reason_text
from engine.ai import Explanation
from engine.manager.computer import suggest
from render.geometry import geometry_for
from render.hint import HINT_CELL, hint_png
from render.marks import MARK
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
    index = geo.index(action.partition("@")[2])
    assert index is not None
    # The numbered disc sits in the space's corner and the ring runs along its edge.
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
