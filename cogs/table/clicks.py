"""Clicks and the commands that share their work -> manager calls.

Every handler runs inside ``refusals``: a refusal from the manager (or one decided here:
who is clicking) becomes a translated ephemeral answer. The manager holds every rule; this
module only knows who clicked, in which language, and what to show them back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import discord

from engine.action import Action
from engine.observation import Observation
from manager import GameManager, Player, Status, TableView
from manager.lobby import rematch_seats, why_not_add_child
from store import StoreUnavailable

from ..i18n import card as card_name
from ..i18n import t
from . import messages
from .choices import choices_view, describe, spaces_of
from .clicked import answering
from .dms import DirectMessages
from .hand_clicks import HandInPlace
from .hands import hand_payload
from .pictures import choice_file
from .posts import Posts
from .prefs import Preferences, speaker_lang
from .replies import (
    FILLED,
    InFlight,
    answer,
    public_placeholder_gone_on_refusal,
    refusal,
    refusals,
    reply,
)
from .requests import request_of
from .watch import via

log = logging.getLogger(__name__)


class TableClicks:
    """The ``Clicks`` of ``cogs.table.buttons``: what each button (and its command) does."""

    def __init__(self, bot: discord.Client, manager: GameManager, prefs: Preferences,
                 posts: Posts, dms: DirectMessages, in_flight: InFlight) -> None:
        self._bot = bot
        self._manager = manager
        self._prefs = prefs
        self._posts = posts
        self._dms = dms
        self._in_flight = in_flight
        self._starting: dict[int, asyncio.Lock] = {}  # games whose Start is being pressed
        self._in_place = HandInPlace(bot, manager, dms)

    # ------------------------------------------------------------------ lobby
    async def open_lobby(self, interaction: discord.Interaction, game: str,
                         options: dict[str, Any], *, on_leave: str = "skip",
                         turn_timer: float | None = None, family_seats: bool = True) -> None:
        """Create a lobby; the reply is the lobby message, kept up to date from then on.
        ``on_leave``: the host's choice for a seat whose player leaves (computer or skip);
        ``turn_timer``: seconds per turn for this game (0: none; None: the server's)."""
        user = interaction.user
        await interaction.response.defer(thinking=True)
        async with public_placeholder_gone_on_refusal(interaction):
            table = await self._manager.create_lobby(
                game, options, Player(user.id, user.display_name), interaction.guild_id,
                interaction.channel_id or 0, on_leave=on_leave, turn_timer=turn_timer,
                family_seats=family_seats)
        await self._show_new_lobby(interaction, table)
        if table.game == "kids" and not await self._dms.check(table, user.id,
                                                              speaker_lang(interaction)):
            await reply(interaction, t("dm.closed.reply", speaker_lang(interaction)))

    async def _show_new_lobby(self, interaction: discord.Interaction, table: TableView,
                              content: str | None = None) -> None:
        """Fill in the "thinking..." placeholder: it becomes the lobby message."""
        embed, view = messages.lobby_message(table, self._prefs.table_lang(table),
                                             board_button=self._posts.offers_the_board(table))
        extra: dict[str, Any] = {} if content is None else {"content": content}
        async with self._posts.showing_lobby(table.game_id):
            message = await interaction.edit_original_response(embed=embed, view=view,
                                                               **extra)
            # filled: whatever is said after this is a message of its own, never written
            # over the public lobby
            interaction.extras[FILLED] = True
            # (the database away now: the lobby is made and shown, only where its message
            # is was not kept, said once by the store; a later change of the lobby posts it
            # again)
            with contextlib.suppress(StoreUnavailable):
                await self._posts.lobby_is(table.game_id, message)

    async def lobby_click(self, interaction: discord.Interaction, game_id: int, what: str
                          ) -> None:
        async with refusals(interaction, f"lobby button {what}", self._in_flight):
            await self._manager.catch_up(game_id)  # several processes: see catch_up
            table = self._manager.get(game_id)
            if table.status is not Status.LOBBY:
                raise refusal("game_started")
            if what == "child":  # the answer to this click is the form asking for the name
                refused = why_not_add_child(table)  # (asked first: the form is the answer)
                if refused is not None:
                    raise refused
                await interaction.response.send_modal(
                    messages.child_modal(game_id, speaker_lang(interaction)))
                return
            await interaction.response.defer()
            with answering(interaction):
                await self.lobby_action(interaction, game_id, what)

    async def child_named(self, interaction: discord.Interaction, game_id: int, name: str
                          ) -> None:
        """The "Add a child" form came back: a seat for the child, held by the account that
        filled it in."""
        async with refusals(interaction, "add a child", self._in_flight):
            table = self._manager.get(game_id)
            if table.status is not Status.LOBBY:
                raise refusal("game_started")
            user = interaction.user
            await interaction.response.defer(ephemeral=True, thinking=True)
            table = await self._manager.add_child(
                game_id, Player(user.id, user.display_name), name)
            lang = speaker_lang(interaction)
            child = table.seats[-1].name
            await reply(interaction, t("reply.child_added", lang, name=child))
            if not await self._dms.check(table, user.id, lang):
                await reply(interaction, t("dm.closed.reply", lang))

    async def remove_child(self, interaction: discord.Interaction, game_id: int, seat: int
                           ) -> None:
        async with refusals(interaction, "remove a child", self._in_flight):
            table = self._manager.get(game_id)
            if table.status is not Status.LOBBY:
                raise refusal("game_started")
            if not (0 <= seat < len(table.seats) and table.seats[seat].is_child):
                raise refusal("no_such_seat")
            await interaction.response.defer()
            with answering(interaction):
                await self._manager.remove_seat(game_id, interaction.user.id, seat,
                                                is_moderator=is_moderator(interaction))

    async def lobby_action(self, interaction: discord.Interaction, game_id: int, what: str
                           ) -> None:
        """Join, leave, start, cancel or add a computer (a button or a command)."""
        user = interaction.user
        if what == "join":
            table = await self._manager.join(game_id, Player(user.id, user.display_name))
            lang = speaker_lang(interaction)
            # (Sequence Dice sends nothing by DM: no hand, so no door to knock on)
            if table.game == "kids" and not await self._dms.check(table, user.id, lang):
                await reply(interaction, t("dm.closed.reply", lang))
        elif what == "leave":
            await self._manager.leave(game_id, user.id)
        elif what == "start":
            await self._start(game_id, user.id)
        elif what == "cancel":
            await self._manager.cancel(game_id, user.id)
        elif what.startswith("cpu-"):
            await self._manager.add_computer(game_id, user.id, what[4:])
        else:
            raise refusal("unknown")

    async def _start(self, game_id: int, user_id: int) -> None:
        """Start the game; if its server plays each game in a thread of its own, the thread
        is opened first and the game starts in it (saved with the start, so every board,
        command and restart finds it there, and the channel is free for the next lobby)."""
        # one start at a time per game in this process: a second click on Start waits for
        # the first (and is then refused as started), instead of opening a second thread
        starting = self._starting.setdefault(game_id, asyncio.Lock())
        try:
            async with starting:
                await self._start_in_a_room(game_id, user_id)
        finally:
            if not starting.locked():
                self._starting.pop(game_id, None)

    async def _start_in_a_room(self, game_id: int, user_id: int) -> None:
        table = self._manager.get(game_id)
        lang = self._prefs.table_lang(table)
        opened = None
        if self._prefs.uses_threads(table.guild_id) and self._manager.may_start(game_id,
                                                                                user_id):
            opened = await self._posts.open_thread(table, lang)
        thread = opened[0] if opened is not None else None
        try:
            started = await self._manager.start_game(game_id, user_id, channel_id=thread)
        except BaseException:
            if thread is not None:
                await self._posts.drop_thread(thread)
            raise
        if opened is not None and started.channel_id == thread:
            await self._posts.thread_opened(started, table.channel_id, lang,
                                            on_lobby=opened[1])

    # ------------------------------------------------------------------ hands and moves
    def _seat_or_refuse(self, game_id: int, user_id: int) -> TableView:
        table = self._manager.get(game_id)
        if self._manager.seat_of(game_id, user_id) is None:
            raise refusal("not_your_seat")
        return table

    async def show_hand(self, interaction: discord.Interaction, game_id: int) -> None:
        async with refusals(interaction, "hand", self._in_flight):
            await self._manager.catch_up(game_id)
            table = self._manager.get(game_id)
            held = table.held_seats(interaction.user.id)
            if not held:
                raise refusal("not_a_player")
            await interaction.response.defer(ephemeral=True, thinking=True)
            for seat in held:  # a grown-up holding a child's seat sees each hand, labelled
                obs = self._manager.seat_observation(game_id, seat)
                payload = await hand_payload(self._bot, table, obs, speaker_lang(interaction))
                await answer(interaction, **payload)

    async def card_click(self, interaction: discord.Interaction, game_id: int, card: str,
                         seat: int | None = None) -> None:
        """A card of one seat's hand (``seat``; hands drawn before family seats name none:
        the clicker's own). On the hand message in the DMs, the answer is that message
        changed into the card's choices (``hand_clicks``); elsewhere (the ephemeral "My
        hand"), an ephemeral message with them."""
        async with refusals(interaction, "card button", self._in_flight):
            await self._manager.catch_up(game_id)
            lang = speaker_lang(interaction)
            in_place = await self._in_place.applies(interaction)
            if in_place and not self._manager.is_active(game_id):
                await self._in_place.game_over(interaction, game_id, lang)
                return
            table = self._seat_or_refuse(game_id, interaction.user.id)
            if seat is None:
                seat = table.seat_of(interaction.user.id)
            if seat is None or seat not in table.held_seats(interaction.user.id):
                raise refusal("not_your_seat")  # a stranger's click, or a forged id
            obs = self._manager.seat_observation(game_id, seat)
            if in_place and card not in (obs.get("hand") or []):
                await self._in_place.made_true(interaction, table, seat, lang)
                return
            if table.turn != seat:
                raise refusal("not_your_turn")
            if card not in (obs.get("hand") or []):
                raise refusal("card_not_in_hand")
            actions = [a for a in obs.get("legal") or [] if Action.parse(a).first == card]
            if not actions:
                raise refusal("illegal")
            key = "prompt.remove" if card == "dragon" else "prompt.space"
            question = t(key, lang, card=card_name(card, lang), the_card=t(f"the_card.{card}",
                                                                            lang))
            if in_place:
                await self._in_place.offer(interaction, table, seat, obs, actions, question,
                                           lang, removing=card == "dragon")
                return
            await self._offer(interaction, game_id, obs, actions, question, lang,
                              removing=card == "dragon")

    async def _offer(self, interaction: discord.Interaction, game_id: int,
                     obs: Observation, actions: list[str], question: str, lang: str, *,
                     removing: bool, dice: list[int] | None = None) -> None:
        """The choices for one move: the small board with the spaces numbered (``dice``: a
        roll, drawn above it), and the buttons (or menus) with the same numbers, as an
        ephemeral reply."""
        spaces = spaces_of(actions)
        picture = await choice_file(obs, spaces, lang, game_id, removing=removing, dice=dice)
        lines = [question, t("prompt.pick_number", lang)] if spaces else [question]
        view = choices_view(game_id, int(obs["history_length"]), actions, lang)
        extra: dict[str, Any] = {} if picture is None else {"file": picture}
        await reply(interaction, "\n".join(lines), view=view, **extra)

    async def play_click(self, interaction: discord.Interaction, game_id: int, action: str,
                         ply: int) -> None:
        async with refusals(interaction, "move button", self._in_flight):
            await self._manager.catch_up(game_id)
            lang = speaker_lang(interaction)
            in_place = await self._in_place.applies(interaction)
            if in_place and not self._manager.is_active(game_id):
                await self._in_place.game_over(interaction, game_id, lang)
                return
            table = self._seat_or_refuse(game_id, interaction.user.id)
            if in_place and table.game == "kids":
                # a number on the hand message kept in the DMs: the move, and that message
                # becomes the new hand (the hand's own owner from here on)
                await self._in_place.play(interaction, table, action, ply, lang)
                return
            await interaction.response.defer()
            moved = await self._manager.submit(game_id, interaction.user.id, action,
                                               expected_ply=ply, via=via(interaction),
                                               request_id=request_of(interaction))
            played = t("prompt.kept" if moved.kept_after_doubt else "prompt.played", lang,
                       move=describe(action, lang))
            try:
                await interaction.edit_original_response(content=played, view=None,
                                                         attachments=[])
            except discord.HTTPException:
                log.debug("could not mark the move prompt as played", exc_info=True)

    async def back_to_cards(self, interaction: discord.Interaction, game_id: int, seat: int
                            ) -> None:
        """From a card's choices on a DM hand message, back to that seat's cards."""
        async with refusals(interaction, "back to the cards", self._in_flight):
            if not await self._in_place.applies(interaction):
                raise refusal("stale_button")  # only ever on a hand message in the DMs
            await self._manager.catch_up(game_id)
            lang = speaker_lang(interaction)
            if not self._manager.is_active(game_id):
                await self._in_place.game_over(interaction, game_id, lang)
                return
            table = self._seat_or_refuse(game_id, interaction.user.id)
            if seat not in table.held_seats(interaction.user.id):
                raise refusal("not_your_seat")
            await self._in_place.show_hand(interaction, table, seat, lang)

    async def roll(self, interaction: discord.Interaction, game_id: int, ply: int | None
                   ) -> None:
        async with refusals(interaction, "roll", self._in_flight):
            await self._manager.catch_up(game_id)
            self._seat_or_refuse(game_id, interaction.user.id)
            lang = speaker_lang(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            obs = self._manager.observation_for(game_id, interaction.user.id)
            rolled_already = (obs.get("turn") == obs.get("seat")
                              and "roll" not in (obs.get("legal") or ["roll"]))
            if not rolled_already:
                # (already rolled: e.g. the prompt was lost in a restart; offer it again)
                await self._manager.submit(game_id, interaction.user.id, "roll",
                                           expected_ply=ply, via=via(interaction),
                                           request_id=request_of(interaction))
            table = self._manager.get(game_id)
            obs = self._manager.observation_for(game_id, interaction.user.id)
            roll = obs.get("last_roll")
            actions = [a for a in obs.get("legal") or [] if a not in ("roll", "pass")]
            if not roll:
                raise refusal("must_roll")
            if table.turn != obs.get("seat") or not actions:
                # the roll allowed no move (it was passed for them): say why, as the board
                name = interaction.user.display_name
                await reply(interaction, messages.dice_line(name, "pass", obs, lang)
                            or t("moved.roll", lang, name=name, a=roll[0], b=roll[1]))
                return
            # the roll is shown to the roller here, as dice on the picture and in words; the
            # channel hears of it on the board that follows the move
            a, b = roll
            await self._offer(interaction, game_id, obs, actions,
                              t("prompt.dice.total", lang, a=a, b=b, total=a + b), lang,
                              removing=all(a.startswith("remove@") for a in actions),
                              dice=[a, b])

    # ------------------------------------------------------------------ rematches
    async def rematch(self, interaction: discord.Interaction, game: str,
                      options: dict[str, Any]) -> None:
        async with refusals(interaction, "rematch", self._in_flight):
            await self.open_lobby(interaction, game, options)

    async def rematch_same_seats(self, interaction: discord.Interaction, game_id: int
                                 ) -> None:
        """A lobby seating the finished game's players and computers again, in the same
        order, with the same options and a new shuffle. The finished game is read back
        from the store, so the button works after a restart. The host (the first person
        still in the game) presses Start; whoever does not want another game presses Leave.
        A player who left the finished game is not seated again."""
        async with refusals(interaction, "rematch", self._in_flight):
            record = await self._manager.load_record(game_id)
            record, _, _ = rematch_seats(record, interaction.user.id)  # (refused first)
            await interaction.response.defer(thinking=True)
            channel_id = interaction.channel_id or record.channel_id
            # everyone is seated as the lobby is made: it is never shown half filled
            async with public_placeholder_gone_on_refusal(interaction):
                table = await self._manager.rematch(game_id, interaction.user.id,
                                                    channel_id)
            await self._show_new_lobby(interaction, table, t(
                "rematch.same_seats", self._prefs.table_lang(table)))


    # ------------------------------------------------------------------ the Activity
    async def launch_board(self, interaction: discord.Interaction, game_id: int) -> None:
        """"Play on the board": Discord opens the Activity in this channel for the
        clicker (LAUNCH_ACTIVITY); the Activity finds the table by its channel."""
        async with refusals(interaction, "play on the board", self._in_flight):
            if not self._posts.board_button:
                raise refusal("stale_button")  # (the Activity was turned off since)
            await interaction.response.launch_activity()


def is_moderator(interaction: discord.Interaction) -> bool:
    """Manage Channels or Manage Server: may end games and remove seats that are not theirs."""
    perms = interaction.permissions
    return perms.manage_channels or perms.manage_guild
