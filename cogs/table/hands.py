"""A Kids hand as a message: the picture, the words over it, a button per card.

Used for the hand by DM, the ephemeral "My hand" and ``/sequence hand``, and by recovery,
so the three always show the same thing.
"""

from __future__ import annotations

from typing import Any

import discord

from engine.manager import TableView
from engine.observation import Observation

from ..i18n import t
from . import messages
from .pictures import hand_file


def where(bot: discord.Client, table: TableView, lang: str) -> str:
    """"#channel in Server": everything sent by DM names the game's place."""
    channel = bot.get_channel(table.channel_id)
    guild = bot.get_guild(table.guild_id) if table.guild_id else None
    return messages.place(lang, getattr(channel, "name", None) or str(table.channel_id),
                          guild.name if guild else "")


async def hand_payload(bot: discord.Client, table: TableView, obs: Observation, lang: str
                       ) -> dict[str, Any]:
    """The hand of the seat ``obs`` belongs to, as keyword arguments for ``send``."""
    if table.game != "kids":
        return {"content": t("hand.none", lang)}
    place = where(bot, table, lang)
    payload: dict[str, Any] = {"content": messages.hand_text(table, obs, lang, place),
                               "view": messages.hand_view(table, obs, lang)}
    caption = t("hand.caption", lang, game=messages.game_name(table, lang), place=place)
    seat = obs.get("seat")
    if seat is not None and messages.labelled(table, seat):
        # whose hand, on the picture too: a grown-up's DMs hold one per seat they play
        caption = t("hand.caption.seat", lang, name=table.seats[seat].name, caption=caption)
    picture = await hand_file(obs, caption, messages.hand_cards(obs, lang), lang,
                              table.game_id)
    if picture is not None:
        payload["file"] = picture
    return payload
