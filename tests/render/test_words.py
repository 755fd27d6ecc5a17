"""One word catalogue (``data/locales``) for the pictures and the messages: every key in
both languages with the same parameters, and a card or a colour named once."""

from __future__ import annotations

import ast
import json
import logging
import string
from pathlib import Path

import pytest

from cogs import i18n
from render import words
from render.alt import alt_text
from render.words import LANGUAGES, card, catalogue, colour, lang_of, t
from tests.render.helpers import played

ROOT = Path(__file__).resolve().parents[2]
CARDS = sorted(k[5:] for k in catalogue("en") if k.startswith("card."))
COLOURS = sorted(k[7:] for k in catalogue("en") if k.startswith("colour."))


def _params(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_every_key_exists_in_english_and_norwegian() -> None:
    assert set(catalogue("en")) == set(catalogue("no"))


@pytest.mark.parametrize("key", sorted(catalogue("en")))
def test_a_key_has_the_same_params_in_both_languages(key: str) -> None:
    assert _params(catalogue("en")[key]) == _params(catalogue("no")[key])


def test_the_pictures_words_are_in_the_catalogue() -> None:
    for prefix in ("picture.", "alt."):
        assert any(k.startswith(prefix) for k in catalogue("en")), prefix
    assert len(CARDS) == 21 and COLOURS == ["blue", "green", "red", "yellow"]


def test_a_key_defined_twice_is_an_error(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "en").mkdir()
    (tmp_path / "en.json").write_text(json.dumps({"a": "A"}), encoding="utf-8")
    (tmp_path / "en" / "feature.json").write_text(json.dumps({"a": "again"}), "utf-8")
    monkeypatch.setattr(words, "LOCALE_DIR", tmp_path)
    words.catalogue.cache_clear()
    try:
        with pytest.raises(ValueError, match="defines"):
            words.catalogue("en")
    finally:
        words.catalogue.cache_clear()


def test_a_key_defined_twice_in_one_file_is_an_error(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """(``place.dm`` was so, the second unused text hiding the first)"""
    (tmp_path / "en").mkdir()
    (tmp_path / "en.json").write_text('{"a": "A", "b": "B", "a": "again"}', encoding="utf-8")
    monkeypatch.setattr(words, "LOCALE_DIR", tmp_path)
    words.catalogue.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"en.json defines \['a'\] twice"):
            words.catalogue("en")
    finally:
        words.catalogue.cache_clear()


def test_feature_files_are_merged_after_the_main_file() -> None:
    assert t("picture.free", "en") == "FREE"  # from en/pictures.json
    assert t("card.lion", "no") == "Løve"  # from no.json


@pytest.mark.parametrize(("locale", "lang"), [
    ("no", "no"), ("nb", "no"), ("nn", "no"), ("no-NO", "no"), ("NB", "no"),
    ("en-GB", "en"), ("de", "en"), ("", "en"), (None, "en"),
])
def test_lang_of_is_norwegian_only_for_norwegian(locale: str | None, lang: str) -> None:
    assert lang_of(locale) == lang


def test_missing_params_are_left_empty_and_no_params_give_the_template() -> None:
    assert t("picture.turn", "en", name="Emma") == "Emma's turn"
    assert t("picture.turn", "en", other=1) == "'s turn"
    assert t("picture.turn", "no") == "Tur: {name}"


def test_an_unknown_key_is_logged_and_shown_as_itself(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="render.words"):
        assert t("no.such.key", "no") == "no.such.key"
    assert "no.such.key" in caplog.text


def test_a_norwegian_text_missing_falls_back_to_english(
        monkeypatch: pytest.MonkeyPatch) -> None:
    only_english = {"en": {"x.y": "English"}, "no": {}}
    monkeypatch.setattr(words, "catalogue", lambda lang: only_english[lang])
    assert words.t("x.y", "no") == "English"


def test_unknown_card_and_colour_ids_are_shown_as_they_are() -> None:
    assert card("lion", "no") == "Løve" and card("griffin", "no") == "griffin"
    assert colour("red", "no") == "rød" and colour("mauve", "en") == "mauve"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_pictures_and_messages_name_cards_and_colours_identically(lang: str) -> None:
    for c in CARDS:
        assert i18n.card(c, lang) == card(c, lang) == catalogue(lang)[f"card.{c}"]
    for c in COLOURS:
        assert i18n.colour(c, lang) == colour(c, lang) == catalogue(lang)[f"colour.{c}"]
    # The board's alt text names the animals under the chips with the messages' names.
    obs = played("kids", 2, 6).observation(None)
    text = alt_text(obs, names=["Emma", "Mum"], lang=lang)
    under_chips = {obs["layout"][i] for i, side in enumerate(obs["board"]) if side is not None}
    assert len(under_chips - {"free"}) >= 3
    for animal in under_chips - {"free"}:
        assert i18n.card(animal, lang).lower() in text


def test_no_picture_module_keeps_its_own_card_or_colour_names() -> None:
    names = {catalogue(lang)[f"card.{c}"] for lang in LANGUAGES for c in CARDS}
    names |= {catalogue("no")[f"colour.{c}"] for c in COLOURS}  # English ones are the ids
    for path in sorted((ROOT / "render").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {node.value for node in ast.walk(tree)
                 if isinstance(node, ast.Constant) and node.value in names}
        assert not found, f"{path.name} names {sorted(found)} itself: use render.words"


def test_the_discord_side_uses_the_same_catalogue() -> None:
    assert i18n.catalogue is catalogue and i18n.t is t and i18n.card is card
    assert i18n.lang_of("nb") == "no" and i18n.lang_of(None) == "en"
