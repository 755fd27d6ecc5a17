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
from render.marks import MARK, chip_ring_radius, disc_centre, disc_diameter, ring_width

from .helpers import chip_colour_at, chip_probe, decode, mark_probe, played, rgb, ring_probe


def _name(index: int, width: int) -> str:
    return f"{chr(ord('A') + index % width)}{index // width + 1}"


def _empty_kids() -> dict[str, Any]:
    return engine.new_game("kids", 2, 1).observation(None)


def _every_space(obs: dict[str, Any]) -> list[str]:
    """What a Unicorn on an empty Kids board offers: every space but the free corners."""
    return [_name(i, obs["width"]) for i, picture in enumerate(obs["layout"])
            if picture != "free" and obs["board"][i] is None]


def _disc(image: Image.Image, geo: Any, index: int) -> list[Any]:
    """The pixels inside a mark's disc (inside its edge), row by row."""
    cx, cy = disc_centre(geo, index)
    r = int(disc_diameter(geo.cell) * 0.4)
    return [image.getpixel((x, y)) for y in range(cy - r, cy + r + 1)
            for x in range(cx - r, cx + r + 1) if (x - cx) ** 2 + (y - cy) ** 2 <= r * r]


def test_every_offered_space_carries_a_mark_and_no_other_does() -> None:
    obs = played("kids", 2, 10).observation(None)
    free = [i for i, s in enumerate(obs["board"]) if s is None and obs["layout"][i] != "free"]
    offered = free[::3]
    image = rgb(choice_png(obs, [_name(i, obs["width"]) for i in offered]))
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    for index in offered:
        assert image.getpixel(mark_probe(geo, index)) == MARK, _name(index, geo.width)
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
    # The disc on B3 says 1 when B3 comes first and 2 when it comes second.
    assert _disc(forward, geo, a) == _disc(backward, geo, b)  # both "1"
    assert _disc(forward, geo, b) == _disc(backward, geo, a)  # both "2"
    assert _disc(forward, geo, a) != _disc(forward, geo, b)


def test_a_chip_to_remove_stays_in_sight_inside_its_ring() -> None:
    obs = played("kids", 2, 30).observation(None)
    theirs = [i for i, s in enumerate(obs["board"]) if s == 1]
    image = rgb(choice_png(obs, [_name(i, obs["width"]) for i in theirs], removing=True))
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    colour = obs["colours"][1]
    for index in theirs:
        assert chip_colour_at(image, chip_probe(geo, index)) == colour
        cx, cy = geo.centre(index)
        middle_of_ring = chip_ring_radius(geo) - ring_width(geo.cell) / 2
        assert image.getpixel((cx, round(cy + middle_of_ring))) == MARK
        assert image.getpixel(mark_probe(geo, index)) == MARK


def test_up_to_forty_marks_fit_on_an_empty_kids_board() -> None:
    obs = _empty_kids()
    spaces = _every_space(obs)
    assert len(spaces) == 38
    image = rgb(choice_png(obs, spaces))
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    discs = [_disc(image, geo, i) for i in (geo.index(s) for s in spaces) if i is not None]
    assert len({tuple(d) for d in discs}) == 38  # 38 different numbers, none clipped
    for space in spaces:
        index = geo.index(space)
        assert index is not None and image.getpixel(mark_probe(geo, index)) == MARK


def test_a_dice_roll_of_eleven_marks_every_free_space() -> None:
    obs = played("dice", 2, 5).observation(None)
    free = [_name(i, obs["width"]) for i, s in enumerate(obs["board"]) if s is None]
    image = rgb(choice_png(obs, free, lang="no"))
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    for space in free:
        index = geo.index(space)
        assert index is not None and image.getpixel(mark_probe(geo, index)) == MARK


def test_the_picture_is_a_small_whole_board_for_a_phone() -> None:
    obs = played("kids", 3, 24).observation(None)
    board = decode(render.board_png(obs, names=["A", "B", "C"]))
    for spaces in (_every_space(obs)[:6], _every_space(obs)[:30]):
        png = choice_png(obs, spaces)
        image = decode(png)
        assert 0.5 <= image.width / board.width <= 0.62
        assert image.size == geometry_for(obs, CHOICE_CELL, legend=False).size
        assert len(png) < 30 * 1024
    assert CHOICE_CELL / DEFAULT_CELL < 0.62


def test_spaces_off_the_board_are_skipped_and_keep_the_others_numbers() -> None:
    obs = _empty_kids()
    geo = geometry_for(obs, CHOICE_CELL, legend=False)
    b3 = geo.index("B3")
    assert b3 is not None
    with_junk = rgb(choice_png(obs, ["Z9", "B3"]))
    plain = rgb(choice_png(obs, ["C4", "B3"]))
    assert _disc(with_junk, geo, b3) == _disc(plain, geo, b3)  # still "2"


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
