"""Answers to the person who clicked or typed, and the one guard around every handler.

``refusals`` is an async context manager rather than a decorator: discord.py reads a slash
command's parameters from the function itself, so the function must stay undecorated; the
guard goes around the body instead of the twenty ``work()`` closures it replaces.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import discord

from engine import Refusal

from ..i18n import error_text, t
from .prefs import speaker_lang

log = logging.getLogger(__name__)


def refusal(code: str) -> Refusal:
    """A refusal decided on the Discord side (who clicks), shaped like the manager's."""
    return Refusal(code, code.replace("_", " "))


async def reply(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was acknowledged yet."""
    view = kwargs.get("view")
    if isinstance(view, discord.ui.View):
        view.stop()  # its items are dynamic: found by custom_id, not kept per message
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(content, ephemeral=True, **kwargs)


async def done(interaction: discord.Interaction, key: str) -> None:
    """Say that a command did what was asked, in the reader's language."""
    await reply(interaction, t(key, speaker_lang(interaction)))


@asynccontextmanager
async def refusals(interaction: discord.Interaction, what: str) -> AsyncIterator[None]:
    """Around a handler: a refusal becomes its translated message, a bug an apology (and a
    log line); neither reaches discord.py, which would show "This interaction failed"."""
    try:
        yield
    except Refusal as exc:
        await reply(interaction, error_text(exc, speaker_lang(interaction)))
    except Exception:
        log.exception("%s failed (user %d, channel %s)", what, interaction.user.id,
                      interaction.channel_id)
        try:
            await reply(interaction, t("error.unexpected", speaker_lang(interaction)))
        except discord.HTTPException:
            log.warning("could not even apologise for %s", what)
