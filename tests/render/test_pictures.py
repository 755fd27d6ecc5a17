"""Sprites, chips and colours: every animal has a picture, the chips stay apart for
colour-blind players and in greyscale."""

from __future__ import annotations

import colorsys
import itertools
import math

import pytest

from render import sprites
from render.palette import CHIPS
from render.vision import delta_e, simulate_colour

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
