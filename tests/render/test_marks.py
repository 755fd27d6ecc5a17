"""The numbered marks read on a phone (issue 25): each badge at least a third of its space
across, its digits at least 22 px tall in the picture as sent, and the animal or the Dice
number under it still mostly in sight. Everything is measured on the pictures as sent,
never taken from a font size or a constant of the code under test."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

import engine
from engine.action import Action
from render import palette as pal
from render.choice import CHOICE_CELL, choice_png
from render.geometry import Geometry, geometry_for
from render.hint import HINT_CELL, hint_png

from .helpers import measure_mark, rgb

MIN_DIGIT_PX = 22  # issue 25: the digit's ink at least 22 px tall in the picture as sent


def _name(index: int, width: int) -> str:
    return f"{chr(ord('A') + index % width)}{index // width + 1}"


def _empty(kind: str) -> dict[str, Any]:
    return engine.new_game(kind, 2, 1).observation(None)


def _every_space(obs: dict[str, Any]) -> list[str]:
    """Every space but the free corners: 38 on a Kids board (a Unicorn early on), 36 on
    a Dice board (the most any roll offers), so numbers 1 to 9 and 10 to 38 both show."""
    return [_name(i, obs["width"]) for i, picture in enumerate(obs["layout"])
            if picture != "free"]


def _all_marked(kind: str) -> tuple[Image.Image, Geometry, list[int]]:
    obs = _empty(kind)
    spaces = _every_space(obs)
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    indices = [geo.index(s) for s in spaces]
    assert None not in indices
    return rgb(choice_png(obs, spaces)), geo, [i for i in indices if i is not None]


@pytest.mark.parametrize("kind", ["kids", "dice"])
def test_a_numbered_mark_is_a_third_of_its_space_across(kind: str) -> None:
    image, geo, indices = _all_marked(kind)
    assert len(indices) >= 36
    for number, index in enumerate(indices, start=1):
        mark = measure_mark(image, geo, index, number)
        # Inside its dark edge, both ways: "1" as much as "38".
        assert mark.width >= geo.cell / 3, number
        assert mark.height >= geo.cell / 3, number


@pytest.mark.parametrize("kind", ["kids", "dice"])
def test_a_marks_digits_are_at_least_22_px_tall_in_the_picture_as_sent(kind: str) -> None:
    image, geo, indices = _all_marked(kind)
    for number, index in enumerate(indices, start=1):
        mark = measure_mark(image, geo, index, number)
        assert mark.digit_height >= MIN_DIGIT_PX, number
        # The digits are whole: magenta on every side of them, none cut by the edge.
        left, top, right, bottom = mark.inside
        d_left, d_top, d_right, d_bottom = mark.digits
        assert left < d_left and top < d_top and d_right < right and d_bottom < bottom, number


def test_the_hint_mark_reads_like_the_choice_mark() -> None:
    obs = engine.new_game("kids", 2, 1).observation(0)
    action = next(a for a in obs["legal"] if "@" in a)
    png = hint_png(obs, action, names=["Emma", "Ola"])
    assert png is not None
    geo = geometry_for(obs, HINT_CELL)
    index = geo.index(Action.parse(action).space or "")
    assert index is not None
    mark = measure_mark(rgb(png), geo, index, 1)
    assert mark.digit_height >= MIN_DIGIT_PX
    assert min(mark.width, mark.height) >= geo.cell / 3


def _in_sight(kind: str, number: int) -> dict[str, float]:
    """For each picture on the board (an animal, a Dice number), the smallest share of its
    pixels left as they were when its space carries the mark ``number``."""
    obs = _empty(kind)
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    paper = pal.SPACE if kind == "kids" else pal.DICE_SPACE
    plain = rgb(choice_png(obs, []))
    out: dict[str, float] = {}
    for space in _every_space(obs):
        index = geo.index(space)
        assert index is not None
        # Spaces off the board keep the others' numbers: this space is marked ``number``.
        marked = rgb(choice_png(obs, ["Z99"] * (number - 1) + [space]))
        x0, y0, x1, y1 = geo.box(index)
        inner = round(geo.cell * 0.12)  # inside the ring a mark draws along the edge
        picture = [(x, y) for x in range(x0 + inner, x1 - inner)
                   for y in range(y0 + inner, y1 - inner)
                   if _differs(plain.getpixel((x, y)), paper)]
        kept = sum(plain.getpixel(xy) == marked.getpixel(xy) for xy in picture)
        name = obs["layout"][index]
        out[name] = min(out.get(name, 1.0), kept / len(picture))
    return out


def _differs(pixel: Any, paper: pal.RGB) -> bool:
    return sum(abs(a - b) for a, b in zip(pixel, paper, strict=True)) > 60


@pytest.mark.parametrize(("kind", "number", "share"), [
    ("kids", 3, 0.55), ("kids", 38, 0.45), ("dice", 3, 0.6), ("dice", 36, 0.5),
])
def test_the_picture_under_a_mark_stays_mostly_in_sight(kind: str, number: int,
                                                         share: float) -> None:
    # The badge sits in the bottom-right corner, away from the animals' heads (they face
    # left) and over only a corner of a Dice number; even "38" leaves most of it.
    for picture, kept in _in_sight(kind, number).items():
        assert kept >= share, (picture, round(kept, 2))
