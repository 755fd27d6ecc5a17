"""A Kids hand as a message: the picture, the words over it, a button per card.

Used for the hand by DM, the ephemeral "My hand" and ``/sequence hand``, and by recovery,
so the three always show the same thing. The hand message kept in a DM is one message in
three states (issue 25), each built here as keyword arguments for a send or an edit: the
hand (``hand_payload``), one card's choices on it (``choice_payload``), and, once its game
is over, what happened and what to do now (``over_payload``).
"""

from __future__ import annotations

from typing import Any

import discord

from engine.factory import load
from engine.manager import TableView
from engine.manager.store import GameRecord
from engine.observation import Observation

from ..i18n import t
from . import messages
from .pictures import board_file, choice_file, hand_file


def where(bot: discord.Client, table: TableView, lang: str) -> str:
    """"#channel in Server": everything sent by DM names the game's place."""
    return where_is(bot, table.channel_id, table.guild_id, lang)


def where_is(bot: discord.Client, channel_id: int, guild_id: int | None, lang: str) -> str:
    channel = bot.get_channel(channel_id)
    guild = bot.get_guild(guild_id) if guild_id else None
    return messages.place(lang, getattr(channel, "name", None) or str(channel_id),
                          guild.name if guild else "")


async def hand_payload(bot: discord.Client, table: TableView, obs: Observation, lang: str,
                       *, note: str | None = None) -> dict[str, Any]:
    """The hand of the seat ``obs`` belongs to, as keyword arguments for ``send``;
    ``note``: a line over it (what was just played, why it changed)."""
    if table.game != "kids":
        return {"content": t("hand.none", lang)}
    place = where(bot, table, lang)
    seat = obs.get("seat")
    labelled = seat is not None and messages.labelled(table, seat)
    lines = messages.hand_text(table, obs, lang, place).split("\n")
    if note:  # under the seat's heading, when it has one: whose hand comes first
        lines.insert(1 if labelled else 0, note)
    payload: dict[str, Any] = {"content": "\n".join(lines),
                               "view": messages.hand_view(table, obs, lang)}
    caption = t("hand.caption", lang, game=messages.game_name(table, lang), place=place)
    if labelled and seat is not None:
        # whose hand, on the picture too: a grown-up's DMs hold one per seat they play
        caption = t("hand.caption.seat", lang, name=table.seats[seat].name, caption=caption)
    picture = await hand_file(obs, caption, messages.hand_cards(obs, lang), lang,
                              table.game_id)
    if picture is not None:
        payload["file"] = picture
    return payload


async def choice_payload(table: TableView, obs: Observation, seat: int, actions: list[str],
                         question: str, lang: str, *, removing: bool) -> dict[str, Any]:
    """One card's choices on the seat's hand message: the small board with the spaces
    numbered, the question, the number buttons and the way back to the cards. A grown-up's
    DMs hold a hand per seat, so a labelled hand stays headed with its seat."""
    spaces = messages.spaces_of(actions)
    lines = [question, t("prompt.pick_number", lang)] if spaces else [question]
    if messages.labelled(table, seat):
        lines.insert(0, messages.seat_heading(table, obs, seat, lang))
    payload: dict[str, Any] = {
        "content": "\n".join(lines),
        "view": messages.hand_choice_view(table.game_id, seat, int(obs["history_length"]),
                                          actions, lang)}
    picture = await choice_file(obs, spaces, lang, table.game_id, removing=removing)
    if picture is not None:
        payload["file"] = picture
    return payload


async def over_payload(bot: discord.Client, record: GameRecord | None, lang: str, *,
                       note: str | None = None, playing: TableView | None = None
                       ) -> dict[str, Any]:
    """A hand message whose game is over (a tap on it after the end, or the move that
    ended it): in words and a picture, that it is over and how it ended (the final board),
    and what to do now; ``playing``: a game the person is in now, whose hand is another
    message. No buttons: nothing on it can act on a game any more."""
    lines = [note] if note else []
    picture: discord.File | None = None
    if record is None or record.snapshot is None:
        lines.append(t("hand.over.unknown", lang))
    else:
        obs = load(record.snapshot).observation(None)
        picture = await board_file(obs, messages.names_of(record.seats, lang), lang,
                                   record.id)
        lines += [t("hand.over", lang), t("hand.over.again", lang, place=where_is(
            bot, record.channel_id, record.guild_id, lang))]
    if playing is not None:
        lines.append(t("hand.over.other_game", lang, place=where(bot, playing, lang)))
    payload: dict[str, Any] = {"content": "\n".join(lines), "view": None}
    if picture is not None:
        payload["file"] = picture
    return payload
