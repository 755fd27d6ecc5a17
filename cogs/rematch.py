"""Rematch: the same seats, in the same order, with the same options and a new shuffle.

The finished game is read back from the store (seats, computer levels, options), so the
button works after a restart. The new lobby is filled at once; the host (the first person
still in the game) presses Start, and anyone who does not want another game presses Leave.
A player who left the finished game is not seated again.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from engine import Refusal
from engine.manager import Player

from .buttons import dealer_of
from .i18n import t

if TYPE_CHECKING:
    from .dealer import Dealer

log = logging.getLogger(__name__)


class SameSeatsRematch(discord.ui.DynamicItem[discord.ui.Button[Any]],
                       template=r"seq:rematch:again:(?P<game>\d+)"):
    """On the final board. The custom_id starts like the older options-only Rematch
    button's (``seq:rematch:``), so tools that look for "a rematch button" find both."""

    def __init__(self, game_id: int, label: str = "?") -> None:
        super().__init__(discord.ui.Button(label=label, emoji="🔁",
                                           style=discord.ButtonStyle.success,
                                           custom_id=f"seq:rematch:again:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> SameSeatsRematch:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        dealer = dealer_of(interaction)

        async def work() -> None:
            await rematch_same_seats(dealer, interaction, self.game_id)

        await dealer.guarded(interaction, work, "rematch")


async def rematch_same_seats(dealer: Dealer, interaction: discord.Interaction,
                             game_id: int) -> None:
    """Open a lobby seating the finished game's players and computers again."""
    manager = dealer.manager
    record = await manager.load_record(game_id)
    if record is None or record.status != "finished":
        raise Refusal("rematch_gone", "That game can no longer be found.")
    if interaction.user.id not in {s.user_id for s in record.seats}:
        raise Refusal("rematch_not_a_player", "Only the players can start a rematch.")
    seats = [s for s in record.seats if not s.left]
    people = [s for s in seats if s.user_id is not None and s.level is None]
    if len(seats) < 2 or not people:
        raise Refusal("rematch_too_few", "Too few players are left for a rematch.")
    host = people[0]
    order = [host, *(s for s in seats if s is not host)]
    await interaction.response.defer(thinking=True)
    channel_id = interaction.channel_id or record.channel_id
    try:
        table = await manager.create_lobby(
            record.kind, dict(record.options), Player(host.user_id or 0, host.name),
            record.guild_id, channel_id, on_leave=record.on_leave)
    except Exception:
        # the public "thinking..." placeholder must not stay behind a refusal
        with contextlib.suppress(discord.HTTPException):
            await interaction.delete_original_response()
        raise
    # Seat everyone before the lobby is shown, so it never shows a half-filled table
    dealer.seating.add(table.game_id)
    try:
        for seat in order[1:]:
            try:
                if seat.level is not None or seat.user_id is None:
                    await manager.add_computer(channel_id, host.user_id or 0,
                                               seat.level or "medium")
                else:
                    await manager.join(channel_id, Player(seat.user_id, seat.name))
            except Refusal as exc:
                # someone else's lobby call got there first: seat whom we can, say nothing
                log.info("rematch of game %d: could not seat %s again (%s)", game_id,
                         seat.name, exc.code)
    finally:
        dealer.seating.discard(table.game_id)
    table = manager.get(table.game_id)
    glang = dealer.guild_lang(table.guild_id)
    embed, view = dealer.lobby_message(table, glang)
    if view is not None:
        view.stop()
    message = await interaction.edit_original_response(
        content=t("rematch.same_seats", glang), embed=embed, view=view)
    dealer.lobby_messages[table.game_id] = (message.channel.id, message.id)
