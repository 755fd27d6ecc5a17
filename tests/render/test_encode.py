"""Palettes: cut from a thinned sample (fast at each start), mapping as truly as a full one."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageStat

from render.board import EXACT_COLOURS, draw_static, palette_sample
from render.encode import make_palette, thinned, to_palette
from render.hand import HAND_EXACT, card_sheet

from .helpers import geometry, played

EVERY_PIXEL = 10**9
#: Two median cuts of the same picture stray by up to about 0.2 apart (a cut from a sixth
#: of the hands' sheet strays 2.6, against 1.1)
NOISE = 0.25


def _stray(image: Image.Image, palette: Image.Image) -> float:
    """How far ``image`` mapped to ``palette`` is from its true colours: the mean absolute
    difference per channel (0-255)."""
    mapped = to_palette(image, palette).convert("RGB")
    return sum(ImageStat.Stat(ImageChops.difference(image, mapped)).mean) / 3


@pytest.mark.parametrize("lang", ["en", "no"])
def test_the_hands_palette_from_a_thinned_sheet_maps_every_card_as_truly_as_a_full_cut(
        lang: str) -> None:
    sheet = card_sheet(lang)
    assert sheet.width * sheet.height > 1_000_000  # big enough to be thinned
    thin = _stray(sheet, make_palette(sheet, HAND_EXACT))
    full = _stray(sheet, make_palette(sheet, HAND_EXACT, pixels=EVERY_PIXEL))
    assert thin <= full + NOISE and thin < 1.5, (thin, full)


@pytest.mark.parametrize(("kind", "seats"), [("kids", 4), ("dice", 3)])
def test_a_boards_palette_from_a_thinned_sample_maps_the_board_as_truly_as_a_full_cut(
        kind: str, seats: int) -> None:
    obs = played(kind, seats, 20).observation(None)
    geo = geometry(obs)
    static = draw_static(geo, obs["layout"], "en")
    sample = palette_sample(static, geo)
    thin = _stray(static, make_palette(sample, EXACT_COLOURS))
    full = _stray(static, make_palette(sample, EXACT_COLOURS, pixels=EVERY_PIXEL))
    assert thin <= full + NOISE and thin < 1.5, (thin, full)


def test_a_thinned_sample_holds_only_true_colours_and_a_small_one_is_kept_whole() -> None:
    sheet = card_sheet("en")
    thin = thinned(sheet, 100_000)
    assert thin.width * thin.height <= 100_000
    true = {colour for _, colour in sheet.getcolors(sheet.width * sheet.height) or []}
    kept = {colour for _, colour in thin.getcolors(thin.width * thin.height) or []}
    assert kept <= true  # picked, not blended
    small = Image.new("RGB", (100, 100))
    assert thinned(small, 100_000) is small


def test_the_exact_colours_come_first_in_the_palette() -> None:
    flat = make_palette(card_sheet("en"), HAND_EXACT).getpalette() or []
    assert [tuple(flat[i * 3:i * 3 + 3]) for i in range(len(HAND_EXACT))] == list(HAND_EXACT)
