"""Every word people read, pictures and messages alike, in English and Norwegian Bokmål.

One catalogue, read from ``data/locales``: ``<lang>.json`` and then each
``<lang>/*.json`` (one file per feature, so features do not all edit one file). The
pictures use it here; the Discord side (``cogs/i18n.py``) uses the same functions, so a
card or a colour has one name wherever it is shown. It lives in ``render`` because the
pictures may not import the Discord side, and the Discord side may import the pictures.

With no ``params``, ``t`` gives the text unformatted: a template such as ``"{name}'s turn"``
that a picture fits around a long name.
"""

from __future__ import annotations

import json
import logging
import string
from functools import cache, partial
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

LOCALE_DIR = Path(__file__).resolve().parent.parent / "data" / "locales"
LANGUAGES = ("en", "no")


@cache
def catalogue(lang: str) -> dict[str, str]:
    """Every text of one language (``"en"`` or ``"no"``) by key. A key defined twice, in one
    language's files, is an error: which of the two wins would depend on file order."""
    if lang not in LANGUAGES:
        raise ValueError(f"no catalogue for language {lang!r}")
    files = [LOCALE_DIR / f"{lang}.json", *sorted((LOCALE_DIR / lang).glob("*.json"))]
    merged: dict[str, str] = {}
    for path in files:
        with path.open(encoding="utf-8") as f:
            part = dict(json.load(f, object_pairs_hook=partial(_once, path)))
        twice = sorted(set(part) & set(merged))
        if twice:
            raise ValueError(f"{path.name} defines {twice} again")
        merged.update(part)
    return merged


def _once(path: Path, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """One JSON object's keys, each once (``json`` alone keeps the last of two silently)."""
    keys = [k for k, _ in pairs]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ValueError(f"{path.name} defines {twice} twice")
    return dict(pairs)


def lang_of(locale: str | None) -> str:
    """``"no"`` for Norwegian (``no``, ``nb``, ``nn``, ``no-NO``, ...), else ``"en"``."""
    return "no" if (locale or "").lower()[:2] in ("no", "nb", "nn") else "en"


class _Blank(dict[str, Any]):
    """Format parameters that leave a missing one empty instead of raising."""

    def __missing__(self, key: str) -> str:
        return ""


def t(key: str, lang: str, **params: object) -> str:
    """The text of ``key`` in ``lang`` (English if it has none), ``params`` filled in and any
    missing one left empty. An unknown key is logged and returned as it is, so a missing
    word shows as its key rather than failing a message or a picture."""
    text = catalogue(lang_of(lang)).get(key)
    if text is None:
        text = catalogue("en").get(key)
        if text is None:
            log.error("no text for key %r", key)
            return key
    if not params:
        return text
    return string.Formatter().vformat(text, (), _Blank(params))


def card(card_id: str, lang: str) -> str:
    """A Kids card's name (``lion`` -> ``Lion`` / ``Løve``); an unknown id as it is."""
    key = f"card.{card_id}"
    return t(key, lang) if key in catalogue("en") else card_id


def colour(colour_id: str, lang: str) -> str:
    """A chip colour's name (``red`` -> ``red`` / ``rød``); an unknown id as it is."""
    key = f"colour.{colour_id}"
    return t(key, lang) if key in catalogue("en") else colour_id


def computer_name(level: str | None, number: int | None, lang: str) -> str:
    """A computer player's name, by its level ("Computer (medium)"), and numbered when
    another computer at the table has that level ("Computer 2 (medium)": the manager
    numbers them, ``manager.offers.computer_numbers``)."""
    named = t(f"level.{level or 'medium'}", lang)
    if number is None:
        return t("computer.name", lang, level=named)
    return t("computer.name.numbered", lang, n=number, level=named)
