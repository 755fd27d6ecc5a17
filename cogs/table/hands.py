"""A Kids hand as a message: the picture, the words over it, a button per card.

Used for the hand by DM, the ephemeral "My hand" and ``/sequence hand``, and by recovery,
so the three always show the same thing. The hand message kept in a DM is one message in
three states (issue 25), each built here as keyword arguments for a send or an edit: the
hand (``hand_payload``), one card's choices on it (``choice_payload``), and, once its game
is over, what happened and what to do now (``over_payload``).
"""

from __future__ import annotations

import contextlib
from typing import Any

import discord

from engine.factory import load
from engine.observation import Observation
from manager import TableView
from render.emoji import CARD_EMOJI
from render.palette import chip_style
from store import GameRecord

from ..i18n import card as card_name
from ..i18n import t
from . import messages
from .buttons import BackToCards, CardButton
from .choices import choices_view, spaces_of
from .dm_memory import CARDS
from .messages import game_name, stopped
from .pictures import board_file, choice_file, hand_file


def where(bot: discord.Client, table: TableView, lang: str) -> str:
    """"#channel in Server": everything sent by DM names the game's place."""
    return where_is(bot, table.channel_id, table.guild_id, lang)


def where_is(bot: discord.Client, channel_id: int, guild_id: int | None, lang: str) -> str:
    channel = bot.get_channel(channel_id)
    guild = bot.get_guild(guild_id) if guild_id else None
    if guild_id is None:
        return messages.place(lang, "", None)
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
    headed = seat is not None and labelled(table, seat)
    lines = hand_text(table, obs, lang, place).split("\n")
    if note:  # under the seat's heading, when it has one: whose hand comes first
        lines.insert(1 if headed else 0, note)
    payload: dict[str, Any] = {"content": "\n".join(lines),
                               "view": hand_view(table, obs, lang)}
    caption = t("hand.caption", lang, game=messages.game_name(table, lang), place=place)
    if headed and seat is not None:
        # whose hand, on the picture too: a grown-up's DMs hold one per seat they play
        caption = t("hand.caption.seat", lang, name=table.seats[seat].name, caption=caption)
    picture = await hand_file(obs, caption, hand_cards(obs, lang), lang,
                              table.game_id)
    if picture is not None:
        payload["file"] = picture
    return payload


async def choice_payload(table: TableView, obs: Observation, seat: int, actions: list[str],
                         question: str, lang: str, *, removing: bool) -> dict[str, Any]:
    """One card's choices on the seat's hand message: the small board with the spaces
    numbered, the question, the number buttons and the way back to the cards. A grown-up's
    DMs hold a hand per seat, so a labelled hand stays headed with its seat."""
    spaces = spaces_of(actions)
    lines = [question, t("prompt.pick_number", lang)] if spaces else [question]
    if labelled(table, seat):
        lines.insert(0, seat_heading(table, obs, seat, lang))
    payload: dict[str, Any] = {
        "content": "\n".join(lines),
        "view": hand_choice_view(table.game_id, seat, int(obs["history_length"]),
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


# -- the pure builders of a hand message --------------------------------------------

def hand_text(table: TableView, obs: Observation, lang: str, where: str) -> str:
    """The words over a hand: whose cards (when one account holds several hands), which
    game, where, and how to play it. They hold whoever's turn it is, so a hand in the DMs
    never goes stale between two moves."""
    # (a game in the bot's own DM: its boards are in the same DM, over the hand)
    turn = "hand.turn" if table.guild_id is not None else "hand.turn.here"
    lines = [t("hand.dm", lang, game=game_name(table, lang), place=where), t(turn, lang)]
    seat = obs.get("seat")
    if seat is not None and labelled(table, seat):
        lines.insert(0, seat_heading(table, obs, seat, lang))
    return "\n".join(lines)


def labelled(table: TableView, seat: int) -> bool:
    """A hand is headed with its seat when it is a child's or its account holds several."""
    s = table.seats[seat]
    return s.is_child or (s.user_id is not None and len(table.held_seats(s.user_id)) > 1)


def seat_heading(table: TableView, obs: Observation, seat: int, lang: str) -> str:
    """"Emma's cards - blue, square": the seat's name, chip colour and chip mark."""
    colours = obs.get("colours") or []
    side_of = obs.get("side_of_seat") or []
    colour = colours[side_of[seat]] if seat < len(side_of) else ""
    return t("hand.for_seat", lang, name=table.seats[seat].name, colour=t(f"colour.{colour}",
             lang), mark=t(f"alt.mark.{chip_style(colour).mark}", lang))


def hand_view(table: TableView, obs: Observation, lang: str) -> discord.ui.View:
    """A button per card in the hand (dead cards red: they can be exchanged)."""
    view = discord.ui.View(timeout=None)
    dead = set(obs.get("dead") or [])
    for card in dict.fromkeys(obs.get("hand") or []):
        view.add_item(CardButton(table.game_id, card, card_name(card, lang), card in dead,
                                 emoji=CARD_EMOJI.get(card), seat=obs.get("seat")))
    return stopped(view)


def hand_shown(obs: Observation) -> str:
    """What a hand message shows, in a few words kept with it in the store: its cards, a
    dead one starred (shown red), so an edit that would change nothing is not sent."""
    dead = set(obs.get("dead") or [])
    return CARDS + ",".join(c + ("*" if c in dead else "") for c in obs.get("hand") or [])


def choice_shown(ply: int) -> str:
    """What a hand message shows while it offers one card's spaces (of move ``ply``)."""
    return f"choice:{ply}"


def hand_choice_view(game_id: int, seat: int, ply: int, actions: list[str], lang: str
                     ) -> discord.ui.View:
    """The choices for one card, on the hand message itself: the numbered spaces and a
    way back to the seat's cards (when a row is left for it: Kids never fills the five)."""
    view = choices_view(game_id, ply, actions, lang)
    with contextlib.suppress(ValueError):  # no row left (five menus): the numbers first
        view.add_item(BackToCards(game_id, seat, t("button.back_to_cards", lang)))
    return stopped(view)


def hand_cards(obs: Observation, lang: str) -> str:
    """The hand in words: the alt text of its picture, and how recovery recognises it."""
    return ", ".join(card_name(c, lang) for c in obs.get("hand") or [])


async def answer_with(interaction: discord.Interaction, payload: dict[str, Any]) -> None:
    """Change the tapped message to ``payload``: as the answer to the tap (UPDATE_MESSAGE)
    if it is not answered yet, else by editing the original (after a deferred update).
    Both are interaction responses: outside Discord's global rate limit."""
    fields = dict(payload)
    picture = fields.pop("file", None)
    fields["attachments"] = [picture] if picture is not None else []
    view = fields.get("view")
    if isinstance(view, discord.ui.View):
        view.stop()  # its items are dynamic: found by custom_id, not kept per message
    if not interaction.response.is_done():
        await interaction.response.edit_message(**fields)
    else:
        await interaction.edit_original_response(**fields)

