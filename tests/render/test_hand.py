"""The hand picture: one card per card held, dead cards greyed, a caption."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import ImageStat

import render
from render.encode import png_bytes, to_palette
from render.hand import (
    CAPTION_H,
    CARD_H,
    CARD_W,
    CARDS,
    GAP,
    MARGIN,
    hand_image,
    hand_in_palette,
    hand_palette,
)

from .helpers import decode, played


def _card_boxes(width: int, count: int) -> list[tuple[int, int, int, int]]:
    x = (width - (count * CARD_W + (count - 1) * GAP)) // 2
    y = MARGIN + CAPTION_H
    return [(x + i * (CARD_W + GAP), y, x + i * (CARD_W + GAP) + CARD_W, y + CARD_H)
            for i in range(count)]


def _saturation(image, box) -> float:  # type: ignore[no-untyped-def]
    return ImageStat.Stat(image.crop(box).convert("HSV").getchannel("S")).mean[0]


def test_hand_shows_each_card_and_greys_the_dead_one() -> None:
    obs = played("kids", 2, 4).observation(0)
    obs["hand"], obs["dead"] = ["lion", "dragon", "lion"], ["dragon"]
    png = render.hand_png(obs, caption="Sequence for Kids · Family · #games")
    image = decode(png).convert("RGB")
    assert decode(png).mode == "P"
    boxes = _card_boxes(image.width, 3)
    lion, dragon, lion2 = (_saturation(image, b) for b in boxes)
    assert abs(lion - lion2) < 1  # the same card looks the same
    obs["dead"] = []
    alive = decode(render.hand_png(obs, caption="Sequence for Kids · Family · #games"))
    assert dragon < _saturation(alive.convert("RGB"), boxes[1]) / 2


def test_hand_is_deterministic_and_handles_any_caption_and_language() -> None:
    obs = played("kids", 3, 10).observation(1)
    caption = "Sequence for Kids · Familien Ærø 🏠 · #spill-kveld " + "x" * 200
    first = render.hand_png(obs, caption=caption, lang="no")
    assert render.hand_png(obs, caption=caption, lang="no") == first
    assert render.hand_png(obs, caption="", lang="en") != first


def test_beginner_hand_of_one_card_and_a_dice_roll_render() -> None:
    obs = played("kids", 2, 2, level="1").observation(0)
    assert len(obs["hand"]) == 1
    assert decode(render.hand_png(obs, caption="x")).width >= CARD_W
    dice = played("dice", 2, 1).observation(0)
    assert dice["dice"]
    assert decode(render.hand_png(dice, caption="Dice")).format == "PNG"


_captions = st.text(alphabet=st.sampled_from(list("AaÆæØøÅågjpqyQ·#-_ 🏠ÉÖ")), max_size=120)


@settings(max_examples=40, deadline=None)
@given(cards=st.lists(st.tuples(st.sampled_from(CARDS), st.booleans()), max_size=6),
       caption=_captions, lang=st.sampled_from(["en", "no"]))
def test_the_hand_built_from_mapped_parts_is_the_whole_hand_mapped_pixel_for_pixel(
        cards: list[tuple[str, bool]], caption: str, lang: str) -> None:
    obs = {"game": "kids", "hand": [card for card, _ in cards],
           "dead": [card for card, dead in cards if dead]}
    whole = to_palette(hand_image(obs, caption=caption, lang=lang), hand_palette(lang))
    parts = hand_in_palette(obs, caption=caption, lang=lang)
    assert parts.tobytes() == whole.tobytes()
    assert parts.getpalette() == whole.getpalette()
    assert png_bytes(parts) == png_bytes(whole)


@pytest.mark.parametrize("roll", [[1, 6], [4, 4], [2]])
def test_a_dice_hand_built_from_mapped_parts_is_the_whole_hand_mapped(roll: list[int]) -> None:
    obs = {"game": "dice", "dice": roll}
    whole = to_palette(hand_image(obs, caption="Dice · #games", lang="no"),
                       hand_palette("no"))
    assert hand_in_palette(obs, caption="Dice · #games", lang="no").tobytes() == whole.tobytes()
