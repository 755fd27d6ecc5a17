"""The choice picture: a small board on which every space a player may pick carries a
numbered mark, number i + 1 for spaces[i], in the same order as the buttons."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

import engine
import render
from render.choice import CHOICE_CELL, choice_alt, choice_png
from render.geometry import DEFAULT_CELL, geometry_for
from render.marks import MARK, badge_box, chip_ring_radius, ring_width

from .helpers import chip_colour_at, chip_probe, decode, mark_probe, played, rgb, ring_probe


def _name(index: int, width: int) -> str:
    return f"{chr(ord('A') + index % width)}{index // width + 1}"


def _empty_kids() -> dict[str, Any]:
    return engine.new_game("kids", 2, 1).observation(None)


def _every_space(obs: dict[str, Any]) -> list[str]:
    """What a Unicorn on an empty Kids board offers: every space but the free corners."""
    return [_name(i, obs["width"]) for i, picture in enumerate(obs["layout"])
            if picture != "free" and obs["board"][i] is None]


def _badge(image: Image.Image, geo: Any, index: int, number: int) -> list[Any]:
    """The pixels inside the badge of a mark numbered ``number`` (inside its edge), row by
    row."""
    x0, y0, x1, y1 = badge_box(geo, index, number)
    edge = (y1 - y0) // 8
    return [image.getpixel((x, y)) for y in range(y0 + edge, y1 - edge)
            for x in range(x0 + edge, x1 - edge)]


def test_every_offered_space_carries_a_mark_and_no_other_does() -> None:
    obs = played("kids", 2, 10).observation(None)
    free = [i for i, s in enumerate(obs["board"]) if s is None and obs["layout"][i] != "free"]
    offered = free[::3]
    image = rgb(choice_png(obs, [_name(i, obs["width"]) for i in offered]))
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    for number, index in enumerate(offered, start=1):
        assert image.getpixel(mark_probe(geo, index, number)) == MARK, _name(index, geo.width)
        assert image.getpixel(ring_probe(geo, index)) == MARK, _name(index, geo.width)
    for index in set(range(len(obs["board"]))) - set(offered):
        assert image.getpixel(ring_probe(geo, index)) != MARK, _name(index, geo.width)


def test_the_numbers_follow_the_order_of_the_spaces() -> None:
    obs = _empty_kids()
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    a, b = geo.index("B3"), geo.index("E6")
    assert a is not None and b is not None
    forward = rgb(choice_png(obs, ["B3", "E6"]))
    backward = rgb(choice_png(obs, ["E6", "B3"]))
    # The badge on B3 says 1 when B3 comes first and 2 when it comes second.
    assert _badge(forward, geo, a, 1) == _badge(backward, geo, b, 1)  # both "1"
    assert _badge(forward, geo, b, 2) == _badge(backward, geo, a, 2)  # both "2"
    assert _badge(forward, geo, a, 1) != _badge(forward, geo, b, 2)


def test_a_chip_to_remove_stays_in_sight_inside_its_ring() -> None:
    obs = played("kids", 2, 30).observation(None)
    theirs = [i for i, s in enumerate(obs["board"]) if s == 1]
    image = rgb(choice_png(obs, [_name(i, obs["width"]) for i in theirs], removing=True))
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    colour = obs["colours"][1]
    for number, index in enumerate(theirs, start=1):
        assert chip_colour_at(image, chip_probe(geo, index)) == colour
        cx, cy = geo.centre(index)
        middle_of_ring = chip_ring_radius(geo) - ring_width(geo.cell) / 2
        assert image.getpixel((round(cx - middle_of_ring), cy)) == MARK
        assert image.getpixel(mark_probe(geo, index, number)) == MARK


def test_up_to_forty_marks_fit_on_an_empty_kids_board() -> None:
    obs = _empty_kids()
    spaces = _every_space(obs)
    assert len(spaces) == 38
    image = rgb(choice_png(obs, spaces))
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    indices = [geo.index(s) for s in spaces]
    badges = [_badge(image, geo, i, n) for n, i in enumerate(indices, 1) if i is not None]
    assert len({tuple(b) for b in badges}) == 38  # 38 different numbers, none clipped
    for number, index in enumerate(indices, start=1):
        assert index is not None and image.getpixel(mark_probe(geo, index, number)) == MARK


def test_a_dice_roll_of_eleven_marks_every_free_space() -> None:
    obs = played("dice", 2, 5).observation(None)
    free = [_name(i, obs["width"]) for i, s in enumerate(obs["board"]) if s is None]
    image = rgb(choice_png(obs, free, lang="no"))
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    for number, space in enumerate(free, start=1):
        index = geo.index(space)
        assert index is not None and image.getpixel(mark_probe(geo, index, number)) == MARK


PHONE_WIDTH = 400  # issue 25 looks at the pictures 400 px wide, as on a phone


@pytest.mark.parametrize("kind", ["kids", "dice"])
def test_the_picture_is_a_small_whole_board_for_a_phone(kind: str) -> None:
    obs = played(kind, 3, 24).observation(None)
    board = decode(render.board_png(obs, names=["A", "B", "C"]))
    spaces = _every_space(obs)
    for marked in (spaces[:6], spaces[:30]):
        png = choice_png(obs, marked)
        image = decode(png)
        # Never shrunk on a phone, so its marks' digits are as tall there as sent.
        assert image.width <= PHONE_WIDTH
        assert 0.5 <= image.width / board.width <= 0.7
        assert image.size == geometry_for(obs, CHOICE_CELL, legend=False).size
        assert len(png) < 30 * 1024
    assert CHOICE_CELL / DEFAULT_CELL < 0.7


def test_spaces_off_the_board_are_skipped_and_keep_the_others_numbers() -> None:
    obs = _empty_kids()
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    b3 = geo.index("B3")
    assert b3 is not None
    with_junk = rgb(choice_png(obs, ["Z9", "B3"]))
    plain = rgb(choice_png(obs, ["C4", "B3"]))
    assert _badge(with_junk, geo, b3, 2) == _badge(plain, geo, b3, 2)  # still "2"


@pytest.mark.parametrize(("lang", "removing", "text"), [
    ("en", False, "Board with the possible spaces numbered: 1 = B3, 2 = C7"),
    ("no", False, "Brett med de mulige feltene nummerert: 1 = B3, 2 = C7"),
    ("en", True, "Board with the chips you may remove numbered: 1 = B3, 2 = C7"),
    ("no", True, "Brett med sjetongene du kan fjerne nummerert: 1 = B3, 2 = C7"),
])
def test_the_alt_text_says_what_the_marks_are(lang: str, removing: bool, text: str) -> None:
    assert choice_alt(["B3", "c7"], lang, removing=removing) == text


@pytest.mark.parametrize("lang", ["en", "no"])
def test_the_alt_text_stays_within_discords_limit(lang: str) -> None:
    spaces = [_name(i, 10) for i in range(100)] * 3
    text = choice_alt(spaces, lang)
    assert len(text) <= 1024 and text.endswith("…")
    assert len(choice_alt(_every_space(_empty_kids()), lang)) < 1024
