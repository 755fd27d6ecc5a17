"""Words on the pictures: names made safe and short, Norwegian letters drawn."""

from __future__ import annotations

import pytest

from render.labels import label
from render.text import ELLIPSIS, _has_glyph, fit, font, safe_name, text_width
from render.words import card, t


@pytest.mark.parametrize(("name", "shown"), [
    ("Ola Nordmann", "Ola Nordmann"),
    ("🦄 Emma", "Emma"),
    ("Zoë\u200b", "Zoë"),
    ("👨‍👩‍👧 family", "family"),
    ("Ærlig Øystein Åsen", "Ærlig Øystein Åsen"),
    ("line\nbreak\ttab", "line break tab"),
    ("", "Player 1"),
    ("💩💩", "Player 1"),
    ("王小明", "Player 1"),  # DejaVu has no Chinese: a row of ? helps nobody
    ("Li 王", "Li ?"),
])
def test_safe_name_keeps_what_the_font_draws(name: str, shown: str) -> None:
    assert safe_name(name, "Player 1") == shown


def test_norwegian_letters_have_glyphs_and_ink() -> None:
    for char in "æøåÆØÅ":
        assert _has_glyph(char)
    mask = label("ÆØÅ æøå", 24, True)
    assert mask.getbbox() is not None
    assert mask.tobytes() != label("AOA aoa", 24, True).tobytes()


def test_fit_shortens_with_an_ellipsis_to_the_width() -> None:
    f = font(22, True)
    long = "Bartholomew Featherstonehaugh-Cholmondeley"
    short = fit(long, f, 150)
    assert short.endswith(ELLIPSIS) and long.startswith(short[:-1])
    assert text_width(short, f) <= 150
    assert fit("Ola", f, 150) == "Ola"
    assert fit(long, f, 1) == ELLIPSIS


def test_words_and_card_names_in_both_languages() -> None:
    assert t("picture.free", "en") == "FREE" and t("picture.free", "no") == "ÅPENT"
    assert t("picture.deck", "nb", n=3) == "Kortstokk: 3"
    assert card("ostrich", "no") == "Struts" and card("unicorn", "no") == "Enhjørning"
    assert t("picture.free", "de") == "FREE"  # unknown languages fall back to English
