"""The rules of each game as Discord embeds with a picture, in the reader's language.

Short sections in the order a family reads them at the table: a turn, the special cards
or rolls (shown in the picture), winning, the draw rule, the beginners' levels for
parents, and the decisions a digital game has to take (RULES.md "Decisions").
"""

from __future__ import annotations

import asyncio
import io
import logging

import discord

from manager import GameManager
from render.rules import rules_png
from store import GuildSettings

from .i18n import t
from .table.messages import minutes
from .table.prefs import speaker_lang
from .table.replies import answer

log = logging.getLogger(__name__)

GAMES = ("kids", "dice")
SECTIONS = {
    "kids": ("turn", "special", "dead", "win", "draw", "levels"),
    "dice": ("turn", "special", "win", "draw"),
}
PICTURE_WORDS = {
    "kids": ("unicorn", "dragon", "free", "line"),
    "dice": ("roll10", "roll11", "roll_again", "line"),
}
COLOURS = {"kids": discord.Colour.from_rgb(214, 96, 40),
           "dice": discord.Colour.from_rgb(0, 130, 100)}


def rules_embed(game: str, lang: str, settings: GuildSettings | None = None) -> discord.Embed:
    """The rules of ``game`` as one embed; the picture is ``attachment://rules_<game>.png``."""
    embed = discord.Embed(title=t(f"rules.title.{game}", lang), colour=COLOURS[game])
    for section in SECTIONS[game]:
        embed.add_field(name=t(f"rules.{game}.{section}.title", lang),
                        value=t(f"rules.{game}.{section}", lang), inline=False)
    common = t("rules.common", lang)
    if settings is not None and settings.turn_timer:
        action = t(f"rules.timer.action.{settings.timeout_action}", lang)
        common += "\n" + t("rules.common.timer", lang,
                           minutes=minutes(settings.turn_timer), action=action)
    embed.add_field(name=t("rules.common.title", lang), value=common, inline=False)
    embed.set_image(url=f"attachment://rules_{game}.png")
    return embed


async def rules_file(game: str, lang: str) -> discord.File | None:
    """The rules picture (drawn in a worker thread); None, logged, if drawing failed, so
    the words still go out."""
    captions = {key: t(f"rules.picture.{game}.{key}" if key == "line" else
                       f"rules.picture.{key}", lang) for key in PICTURE_WORDS[game]}
    try:
        png = await asyncio.to_thread(rules_png, game, captions, lang)
    except Exception:
        log.exception("could not draw the rules picture of %s", game)
        return None
    return discord.File(io.BytesIO(png), filename=f"rules_{game}.png",
                        description=t(f"rules.alt.{game}", lang))


async def rules_message(games: list[str], lang: str, settings: GuildSettings | None = None
                        ) -> tuple[list[discord.Embed], list[discord.File]]:
    """The embeds and pictures for ``games`` (one of each per game)."""
    embeds, files = [], []
    for game in games:
        embed = rules_embed(game, lang, settings)
        picture = await rules_file(game, lang)
        if picture is None:
            embed.set_image(url=None)
        else:
            files.append(picture)
        embeds.append(embed)
    return embeds, files


async def show_rules(manager: GameManager, interaction: discord.Interaction,
                     game: str | None) -> None:
    """Answer ``/sequence rules [game]`` privately, in the reader's language: the game
    asked for, else the game of this channel, else both."""
    lang = speaker_lang(interaction)
    if game in GAMES:
        games = [game]
    else:
        table = manager.table_for_channel(interaction.channel_id or 0)
        games = [table.game] if table is not None else list(GAMES)
    await interaction.response.defer(ephemeral=True, thinking=True)
    settings = (await manager.guild_settings(interaction.guild_id)
                if interaction.guild_id is not None else None)
    embeds, files = await rules_message(games, lang, settings)
    await answer(interaction, embeds=embeds, files=files)
