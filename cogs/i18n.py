"""The Discord face of the words: command names and descriptions for Discord's translator,
refusals in words, and the language of a Discord locale.

The words themselves, and the functions that look them up (``catalogue``, ``t``, ``card``,
``colour``), are ``render.words``: one catalogue in ``data/locales`` for the pictures and
the messages alike. They are re-exported here so a cog imports its words from one place.
Replies follow ``interaction.locale``; channel messages follow the server's locale;
Discord's Norwegian locale code is ``no``.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from render import words
from render.words import LANGUAGES, card, catalogue, colour, t

__all__ = ["LANGUAGES", "Translator", "card", "catalogue", "colour", "error_text", "lang_of",
           "locale_str", "t"]

log = logging.getLogger(__name__)


def lang_of(locale: discord.Locale | str | None) -> str:
    """``"no"`` for Norwegian (Discord's ``no``, and ``nb``/``nn``), else ``"en"``."""
    return words.lang_of(locale.value if isinstance(locale, discord.Locale) else locale)


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
