"""Every message exists in English and Norwegian: one key set, every refusal translated."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from cogs import i18n

ROOT = Path(__file__).resolve().parents[2]


def test_both_languages_have_the_same_keys() -> None:
    assert set(i18n.catalogue("en")) == set(i18n.catalogue("no"))


@pytest.mark.parametrize("key", sorted(i18n.catalogue("en")))
def test_a_text_uses_the_same_placeholders_in_both_languages(key: str) -> None:
    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f}
    assert fields(i18n.catalogue("en")[key]) == fields(i18n.catalogue("no")[key])
    assert i18n.catalogue("no")[key].strip(), "no empty text"


def test_every_refusal_code_of_the_engine_and_manager_has_a_text() -> None:
    codes: set[str] = set()
    for path in (ROOT / "engine").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'(?:IllegalAction|InvalidOptions|refuse|ManagerError)\(\s*"'
                                r'([a-z_]+)"', text))
    assert len(codes) > 20, "the engine's codes were found"
    missing = sorted(c for c in codes if f"error.{c}" not in i18n.catalogue("en"))
    assert missing == []


def test_command_names_follow_discords_rules() -> None:
    for lang in i18n.LANGUAGES:
        for key, text in i18n.catalogue(lang).items():
            if key.endswith(".name") and key.startswith(("cmd.", "opt.")):
                assert re.fullmatch(r"[-_\w]{1,32}", text) and text == text.lower(), (lang, key)
            if key.endswith(".description"):
                assert 1 <= len(text) <= 100, (lang, key)


def test_norwegian_keeps_the_words_of_the_printed_rules() -> None:
    no = " ".join(i18n.catalogue("no").values())
    for word in ("sjetong", "åpne felt", "kortstokk", "enhjørningskort", "dragekort",
                 "spillebrett", "felt", "terninger", "kast", "lag", "din tur"):
        assert word in no.lower(), word
