"""Sprites, chips and colours: every animal has a picture, the chips stay apart for
colour-blind players and in greyscale."""

from __future__ import annotations

import colorsys
import itertools
import math

import pytest
from PIL import Image, ImageChops, ImageDraw

import engine
from render import palette as pal
from render import sprites
from render.board import DEFAULT_CELL, board_image, geometry_for
from render.chips import draw_mark
from render.palette import CHIPS, FREE_MARK, Mark
from render.vision import delta_e, simulate_colour
from tools.make_sprites import DRAWN, fit_square

CARDS = ("moose", "penguin", "gorilla", "panda", "turtle", "fox", "elephant", "camel",
         "tiger", "wolf", "lion", "whale", "ostrich", "giraffe", "alligator", "hippo", "shark",
         "kangaroo", "zebra", "unicorn", "dragon")


def test_every_card_has_a_committed_picture_and_the_licence_note() -> None:
    for card in CARDS:
        path = sprites.SPRITE_DIR / f"{card}.png"
        assert path.exists(), card
        picture = sprites.sprite(card, 64)
        alpha = picture.getchannel("A")
        assert alpha.getbbox() is not None
        assert alpha.histogram()[255] > 64 * 64 // 5, card  # a picture, not a word
    licence = (sprites.SPRITE_DIR / "LICENSE.txt").read_text()
    assert "SIL Open Font License" in licence and "Google" in licence


# Share of a sprite's square its opaque pixels cover (measured: the emoji 42-74%, the
# drawn ostrich 37%, kangaroo 37% and giraffe 40%; the giraffe's and the kangaroo's emoji,
# whole thin animals, covered 23% and 25% until issue 25 had them drawn).
MIN_FILL = 0.35


@pytest.mark.parametrize("card", CARDS)
def test_every_animal_fills_its_square_enough_to_spot_on_a_phone(card: str) -> None:
    with Image.open(sprites.SPRITE_DIR / f"{card}.png") as picture:
        alpha = picture.convert("RGBA").getchannel("A")
    covered = alpha.point(lambda v: 255 if v >= 128 else 0).histogram()[255]
    assert covered / (alpha.width * alpha.height) >= MIN_FILL, card


@pytest.mark.parametrize("card", sorted(DRAWN))
def test_the_drawn_animals_are_what_the_tool_draws(card: str) -> None:
    # The committed picture is the tool's drawing, so redrawing one never changes another
    # by surprise. A small tolerance: another Pillow may round an edge differently.
    made = fit_square(DRAWN[card](), 128)
    with Image.open(sprites.SPRITE_DIR / f"{card}.png") as picture:
        committed = picture.convert("RGBA")
    assert made.size == committed.size
    bands = ImageChops.difference(made, committed).split()
    worst = bands[0]
    for band in bands[1:]:
        worst = ImageChops.lighter(worst, band)  # each pixel's largest difference, alpha too
    differing = sum(worst.histogram()[3:])
    assert differing <= made.width * made.height // 100, (card, differing)


def test_kids_cards_match_the_engine() -> None:
    from engine.kids_board import CARDS as ENGINE_CARDS

    assert set(ENGINE_CARDS) == set(CARDS)


def test_a_missing_picture_falls_back_to_the_word() -> None:
    picture = sprites.sprite("no-such-animal", 48)
    assert picture.size == (48, 48) and picture.getbbox() is not None


def test_every_colour_has_its_own_mark() -> None:
    marks = [style.mark for style in CHIPS.values()]
    assert len(set(marks)) == len(marks)


@pytest.mark.parametrize("vision", ["deuteranopia", "protanopia"])
def test_chip_colours_stay_apart_for_red_green_colour_blindness(vision: str) -> None:
    seen = {name: simulate_colour(style.fill, vision) for name, style in CHIPS.items()}  # type: ignore[arg-type]
    for a, b in itertools.combinations(seen, 2):
        assert math.dist(seen[a], seen[b]) > 90, (a, b, seen[a], seen[b])


def test_yellow_is_the_light_chip_in_greyscale() -> None:
    grey = {name: simulate_colour(style.fill, "greyscale")[0] for name, style in CHIPS.items()}
    assert all(grey["yellow"] - grey[other] > 80 for other in ("red", "blue", "green"))


def test_the_red_chip_is_red_not_orange() -> None:
    r, g, b = CHIPS["red"].fill
    hue = colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)[0] * 360
    assert min(hue, 360 - hue) <= 15, hue  # the vermillion (213, 94, 0) was 26 degrees off


@pytest.mark.parametrize("vision", ["deuteranopia", "protanopia"])
def test_every_pair_of_chip_colours_looks_different_to_a_colour_blind_player(
        vision: str) -> None:
    seen = {name: simulate_colour(style.fill, vision) for name, style in CHIPS.items()}  # type: ignore[arg-type]
    for a, b in itertools.combinations(seen, 2):
        assert delta_e(seen[a], seen[b]) > 30, (a, b, seen[a], seen[b])


def test_red_and_green_differ_in_lightness_too() -> None:
    # for a red-green colour-blind child, lightness is what is left to tell them apart
    luma = {name: simulate_colour(CHIPS[name].fill, "greyscale")[0] for name in ("red", "green")}
    assert luma["green"] - luma["red"] >= 30, luma


def _silhouette(mark: Mark, size: int = 120) -> Image.Image:
    image = Image.new("1", (size, size), 0)
    draw_mark(ImageDraw.Draw(image), mark, size / 2, size / 2, size * 0.6, 1)  # type: ignore[arg-type]
    return image


def test_the_free_corners_carry_a_mark_no_players_chip_has() -> None:
    assert FREE_MARK not in {style.mark for style in CHIPS.values()}
    free = _silhouette(FREE_MARK)
    for name, style in CHIPS.items():
        chip_mark = _silhouette(style.mark)
        both = ImageChops.logical_and(free, chip_mark).histogram()[255]
        either = ImageChops.logical_or(free, chip_mark).histogram()[255]
        assert both / either < 0.5, (name, style.mark)  # a different shape, not a resized one


def test_the_board_draws_the_free_mark_on_every_free_corner() -> None:
    obs = engine.new_game("kids", 2, 0).observation(None)
    board = board_image(obs, names=["A", "B"], cell=DEFAULT_CELL).convert("RGB")
    geo = geometry_for(obs, DEFAULT_CELL)
    corners = [i for i, picture in enumerate(obs["layout"]) if picture == "free"]
    assert len(corners) == 4
    for index in corners:
        x0, y0, x1, y1 = geo.box(index)
        inset = max(1, round(DEFAULT_CELL * 0.03))
        size = (x1 - inset - 1) - (x0 + inset)
        cx, cy = (x0 + x1 - 1) / 2, (y0 + y1 - 1) / 2
        expected = Image.new("1", board.size, 0)
        draw_mark(ImageDraw.Draw(expected), FREE_MARK, cx, cy - size * 0.1, size * 0.5, 1)  # type: ignore[arg-type]
        inked = [board.getpixel(xy) for xy in _points(expected)]
        drawn = sum(1 for px in inked if math.dist(px, pal.SPACE_EDGE) < 30)  # type: ignore[arg-type]
        assert drawn / len(inked) > 0.8, (index, drawn, len(inked))


def _points(mask: Image.Image) -> list[tuple[int, int]]:
    box = mask.getbbox()
    assert box is not None
    return [(x, y) for y in range(box[1], box[3]) for x in range(box[0], box[2])
            if mask.getpixel((x, y))]
