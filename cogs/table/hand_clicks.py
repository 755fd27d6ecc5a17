"""Clicks on the hand message kept in a DM, answered by changing that message (issue 25).

A child plays from the hand in the DMs: tap an animal, tap the number. Families reload the
app between turns, and Discord forgets ephemeral messages then, so nothing of the hand may
live in one: the card click turns the hand message itself into that card's choices (the
small numbered board, the number buttons, a way back to the cards), and the number click
turns it into the new hand with the move on top. Both are interaction responses (callback
UPDATE_MESSAGE, or a deferred update and an edit of @original): outside Discord's global
rate limit, where a DM would count.

A message that cannot be true any more says so instead of acting: a tap on the hand of a
game that is over (or of an older game in the same DM) turns it into the final board and
what to do now; a tap that finds the message out of date (a card no longer held, the
numbers of a turn gone by) turns it into the hand as it is.

``TableClicks`` asks whether a click is one of these (``applies``) and hands it here;
which message is each seat's hand and what it shows is the DM memory's (``dm_memory.py``),
told here of each change.
"""

from __future__ import annotations

import logging
import re

import discord

from engine import Refusal
from engine.observation import Observation
from manager import GameManager, Status, TableView

from ..i18n import t
from .answer_time import in_time
from .buttons import BACK, CARD
from .choices import describe
from .dms import DirectMessages, Tap
from .hands import answer_with, choice_payload, choice_shown, hand_payload, hand_shown
from .posted import DmHand
from .posts import SENDING_FAILED
from .replies import refusal
from .requests import request_of
from .watch import via

log = logging.getLogger(__name__)

_SEAT_OF = (re.compile(BACK), re.compile(CARD))


def seat_on(message: discord.Message | None, game_id: int) -> int | None:
    """The seat whose hand ``message`` is (read from its own buttons: the way back to the
    cards, or a card of a hand drawn since family seats), if it says."""
    if message is None:
        return None
    for row in message.components:
        for item in getattr(row, "children", []):
            custom_id = getattr(item, "custom_id", None) or ""
            for pattern in _SEAT_OF:
                found = pattern.fullmatch(custom_id)
                if found and int(found["game"]) == game_id and found["seat"] is not None:
                    return int(found["seat"])
    return None


class HandInPlace:
    """Answers clicks on a DM hand message by changing the message itself."""

    def __init__(self, bot: discord.Client, manager: GameManager, dms: DirectMessages
                 ) -> None:
        self._bot = bot
        self._manager = manager
        self._dms = dms
        self._memory = dms.memory  # which message is each seat's hand, and what it shows

    async def applies(self, interaction: discord.Interaction) -> bool:
        """A click on a message of the bot's that stays in the clicker's own DMs (a hand
        message, in one of its states): answered by changing that message. (An ephemeral
        one, left from before hands changed in place, is answered as before.)"""
        message = interaction.message
        return (interaction.guild_id is None and message is not None
                and not message.flags.ephemeral
                and await self._memory.is_dm_of(interaction.user.id, interaction.channel_id))

    async def play(self, interaction: discord.Interaction, table: TableView, action: str,
                   ply: int, lang: str) -> None:
        """A number tapped on the hand message: the move, made with the tap (a ``Tap``, the
        move's ``reply_to``), so the hand's owner turns the message, which shows the card's
        choices, into the new hand as the answer to it (``DirectMessages.deliver_hand``:
        outside Discord's global rate limit, where a DM edit would count). A refused number
        (a turn gone by, not this seat's turn): the message shows the hand as it is, and
        the refusal says why."""
        user = interaction.user.id
        seat = table.seat_of(user)
        shown = seat_on(interaction.message, table.game_id)
        if shown is not None and shown not in table.held_seats(user):
            raise refusal("not_your_seat")  # the numbers on another seat's hand
        mover = seat if seat is not None and seat == table.turn else None
        await interaction.response.defer()
        try:
            moved = await self._manager.submit(
                table.game_id, user, action, expected_ply=ply, via=via(interaction),
                request_id=request_of(interaction),
                reply_to=Tap(interaction, mover, action, lang) if mover is not None else None)
        except Refusal:
            await self._hand_again(interaction, table, shown if shown is not None else seat,
                                   lang)
            raise
        if mover is not None:
            return  # (the new hand is the answer, from the hand's owner)
        played = t("prompt.kept" if moved.kept_after_doubt else "prompt.played", lang,
                   move=describe(action, lang))
        try:  # (not this seat's turn as the click came, but the manager took the move)
            await interaction.edit_original_response(content=played, view=None,
                                                     attachments=[])
        except discord.HTTPException:
            log.debug("could not mark the move prompt as played", exc_info=True)

    async def _hand_again(self, interaction: discord.Interaction, table: TableView,
                          seat: int | None, lang: str) -> None:
        """A refused number on a DM hand message: that message shows its seat's hand."""
        if seat is None or seat not in table.held_seats(interaction.user.id):
            return
        try:
            await self.made_true(interaction, table, seat, lang)
        except SENDING_FAILED:
            log.info("could not show the hand of game %d again", table.game_id,
                     exc_info=True)

    async def offer(self, interaction: discord.Interaction, table: TableView, seat: int,
                    obs: Observation, actions: list[str], question: str, lang: str, *,
                    removing: bool) -> None:
        """A card tapped: the hand message becomes that card's choices."""
        # (each wait bounded by the tap's time left: ``answer_time``)
        payload = await in_time(interaction, choice_payload(table, obs, seat, actions,
                                                            question, lang, removing=removing))
        # kept before the message changes (``DmMemory.hand_shows``): a process killed
        # between the two must not leave a restart believing the cards are shown
        async with self._dms.locks.changing(table.game_id, seat, tap=interaction):
            ply = int(obs["history_length"])
            await in_time(interaction, self._noted(interaction, table.game_id, seat,
                                                   choice_shown(ply), ply))
            await answer_with(interaction, payload)

    async def show_hand(self, interaction: discord.Interaction, table: TableView, seat: int,
                        lang: str, *, note: str | None = None) -> None:
        """The hand message becomes the seat's hand as it is now (``note`` over it): the
        way back from a card's choices, the move just made, or an out-of-date message made
        true. If the game is over meanwhile, it says so instead."""
        try:
            table = self._manager.get(table.game_id)
            obs = self._manager.seat_observation(table.game_id, seat)
        except Refusal:
            await self.game_over(interaction, table.game_id, lang, note=note)
            return
        if table.status is not Status.PLAYING:
            await self.game_over(interaction, table.game_id, lang, note=note)
            return
        payload = await in_time(interaction, hand_payload(self._bot, table, obs, lang,
                                                          note=note))
        async with self._dms.locks.changing(table.game_id, seat, tap=interaction):
            await answer_with(interaction, payload)
            await self._noted(interaction, table.game_id, seat, hand_shown(obs),
                              int(obs["history_length"]))

    async def made_true(self, interaction: discord.Interaction, table: TableView, seat: int,
                        lang: str) -> None:
        """The tapped message was out of date: it becomes the hand as it is, saying so."""
        await self.show_hand(interaction, table, seat, lang, note=t("hand.made_true", lang))

    async def game_over(self, interaction: discord.Interaction, game_id: int, lang: str, *,
                        note: str | None = None) -> None:
        """The message's game is over: it shows so (``DirectMessages.show_over``)."""
        await self._dms.show_over(interaction, game_id, lang, note=note)

    async def _noted(self, interaction: discord.Interaction, game_id: int, seat: int,
                     shows: str, ply: int) -> None:
        message = interaction.message
        if message is not None:
            await self._memory.hand_shows(DmHand(game_id, seat, interaction.user.id,
                                                 message.channel.id, message.id, shows, ply))
