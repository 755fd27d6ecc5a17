"""The words people read, in English and Norwegian Bokmål, from ``data/locales/*.json``.

One key set for both languages (a test checks it). Replies follow ``interaction.locale``;
channel messages follow the server's locale; Discord's Norwegian locale code is ``no``.
"""

from __future__ import annotations

import json
import logging
import string
from functools import cache
from pathlib import Path
from typing import Any

import discord
from discord import app_commands

log = logging.getLogger(__name__)

LOCALE_DIR = Path(__file__).resolve().parent.parent / "data" / "locales"
LANGUAGES = ("en", "no")


@cache
def catalogue(lang: str) -> dict[str, str]:
    """Every string of one language, by key: ``data/locales/<lang>.json`` and then any
    ``data/locales/<lang>/*.json`` (one file per feature, so features do not all edit one
    file). A key defined twice is an error."""
    files = [LOCALE_DIR / f"{lang}.json", *sorted((LOCALE_DIR / lang).glob("*.json"))]
    merged: dict[str, str] = {}
    for path in files:
        with path.open(encoding="utf-8") as f:
            part = dict(json.load(f))
        twice = sorted(set(part) & set(merged))
        if twice:
            raise ValueError(f"{path.name} defines {twice} again")
        merged.update(part)
    return merged


def lang_of(locale: discord.Locale | str | None) -> str:
    """``"no"`` for Norwegian (Discord's ``no``, and ``nb``/``nn``), else ``"en"``."""
    value = locale.value if isinstance(locale, discord.Locale) else (locale or "")
    return "no" if value.lower()[:2] in ("no", "nb", "nn") else "en"


class _Blank(dict[str, Any]):
    """Format parameters that leave a missing one empty instead of raising."""

    def __missing__(self, key: str) -> str:
        return ""


def t(key: str, lang: str, **params: Any) -> str:
    """The text of ``key`` in ``lang`` (English if missing), with ``params`` filled in."""
    text = catalogue(lang).get(key)
    if text is None:
        text = catalogue("en").get(key)
        if text is None:
            log.error("no text for key %r", key)
            return key
    if not params:
        return text
    return string.Formatter().vformat(text, (), _Blank(params))


def card(card_id: str, lang: str) -> str:
    """A Kids card's name (``lion`` -> ``Lion`` / ``Løve``)."""
    return t(f"card.{card_id}", lang) if f"card.{card_id}" in catalogue("en") else card_id


def error_text(exc: Exception, lang: str) -> str:
    """The translated refusal for an engine or manager error (``.code``, ``.params``)."""
    code = getattr(exc, "code", None) or "unknown"
    params = dict(getattr(exc, "params", None) or {})
    if isinstance(params.get("card"), str):
        params["card"] = card(params["card"], lang)
    key = f"error.{code}"
    if key not in catalogue("en"):
        log.warning("no translation for error code %r", code)
        key = "error.unknown"
    return t(key, lang, **params)


def locale_str(key: str) -> app_commands.locale_str:
    """A command name/description: English text, with the key the translator looks up."""
    return app_commands.locale_str(catalogue("en")[key], key=key)


class Translator(app_commands.Translator):
    """Command names, descriptions and choices in Norwegian for Discord's ``no`` locale."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        key = string.extras.get("key")
        if key is None or lang_of(locale) == "en" or locale is not discord.Locale.norwegian:
            return None
        return catalogue("no").get(key)
