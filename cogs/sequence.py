"""``/sequence ...``: the slash commands.

Every command asks the manager (through the table's clicks where a button does the same
work) and answers with what it says; no
rule is decided here. Names and descriptions come from ``data/locales`` through the
translator, so Discord shows them in English or Norwegian.
"""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from engine.action import Action, as_action, parsed
from manager import GameManager, Status, TableView

from . import i18n
from .hints import show_hint
from .i18n import locale_str as L
from .i18n import t
from .rules import show_rules
from .table import Desk, messages
from .table.buttons import modal_submitted, understood
from .table.choices import describe, numbered, numbered_label
from .table.clicks import is_moderator
from .table.pictures import board_file
from .table.prefs import speaker_lang
from .table.replies import (
    answer,
    done,
    public_placeholder_gone_on_refusal,
    refusal,
    refusals,
    reply,
)
from .table.requests import request_of
from .table.watch import via

log = logging.getLogger(__name__)

GAME_CHOICES: list[Choice[str]] = [Choice(name=L("choice.kids"), value="kids"),
                Choice(name=L("choice.dice"), value="dice")]
LEVEL_CHOICES: list[Choice[str]] = [Choice(name=L(f"choice.level.{v}"), value=v)
                                    for v in ("1", "2", "3", "normal")]
LENGTH_CHOICES: list[Choice[int]] = [Choice(name=L(f"choice.length.{v}"), value=v)
                                     for v in (5, 6)]
ON_LEAVE_CHOICES: list[Choice[str]] = [Choice(name=L(f"choice.on_leave.{v}"), value=v)
                                       for v in ("computer", "skip")]


def _card_ids() -> dict[str, str]:
    """Card names in both languages (and ids) -> card id, for typed-in cards."""
    out: dict[str, str] = {}
    for lang in i18n.LANGUAGES:
        for key, name in i18n.catalogue(lang).items():
            if key.startswith("card."):
                out[name.casefold()] = key[5:]
                out[key[5:]] = key[5:]
    return out


CARD_IDS = _card_ids()


# Where /sequence is offered (Discord reads it off the group: a subcommand cannot narrow
# it). A server that invited the bot, and the bot's own DM, where it posts the boards as
# in a server's channel (the game is the DM's person's, with computers and family seats).
# Not yet group DMs, DMs between people, or servers without the bot, which need the app
# installed to a person's account and a game told through interaction answers alone.
@app_commands.allowed_installs(guilds=True, users=False)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=False)
class Sequence(commands.GroupCog, group_name=L("cmd.sequence.name"),
               group_description=L("cmd.sequence.description")):
    """The ``/sequence`` command group."""

    def __init__(self, bot: commands.Bot, desk: Desk) -> None:
        self.bot = bot
        self.desk = desk
        self.prefs = desk.prefs
        self.clicks = desk.clicks
        self.manager: GameManager = desk.manager
        self.in_flight = desk.in_flight
        super().__init__()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        await self.desk.on_ready()

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Remember the language each person reads (their DMs follow it), and answer a
        click that no button of ours understands (an older version's button, a truncated
        or forged id): otherwise discord.py drops it and Discord shows "This interaction
        failed"."""
        self.prefs.heard_from(interaction)
        if await modal_submitted(interaction):
            return
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id") or "")
        if not custom_id.startswith("seq:") or understood(custom_id):
            return
        log.info("unknown button %r from user %d", custom_id, interaction.user.id)
        try:
            await interaction.response.send_message(
                t("error.stale_button", speaker_lang(interaction)), ephemeral=True)
        except discord.HTTPException:
            log.debug("could not answer an unknown button", exc_info=True)

    # ------------------------------------------------------------------ helpers
    def _table_here(self, interaction: discord.Interaction) -> TableView:
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        if table is None:
            raise refusal("no_game_here")
        return table

    # ------------------------------------------------------------------ lobby
    @app_commands.command(name=L("cmd.new.name"), description=L("cmd.new.description"))
    @app_commands.rename(game=L("opt.game.name"), level=L("opt.level.name"),
                         sequence_length=L("opt.sequence_length.name"), teams=L("opt.teams.name"),
                         if_someone_leaves=L("opt.on_leave.name"),
                         turn_timer=L("opt.game_timer.name"), family_seats=L("opt.family.name"))
    @app_commands.describe(game=L("opt.game.description"), level=L("opt.level.description"),
                           sequence_length=L("opt.sequence_length.description"),
                           teams=L("opt.teams.description"),
                           if_someone_leaves=L("opt.on_leave.description"),
                           turn_timer=L("opt.game_timer.description"),
                           family_seats=L("opt.family.description"))
    @app_commands.choices(game=GAME_CHOICES, level=LEVEL_CHOICES,  # type: ignore[misc]
                          sequence_length=LENGTH_CHOICES, if_someone_leaves=ON_LEAVE_CHOICES)
    async def new(self, interaction: discord.Interaction, game: str, level: str | None = None,
                  sequence_length: int | None = None, teams: bool | None = None,
                  if_someone_leaves: str | None = None,
                  turn_timer: app_commands.Range[int, 0, 1440] | None = None,
                  family_seats: bool | None = None) -> None:
        options: dict[str, Any] = {}
        if level is not None:
            options["level"] = level
        if sequence_length is not None:
            options["sequence_length"] = sequence_length
        if teams is not None:
            options["teams"] = teams

        async with refusals(interaction, "/sequence new", self.in_flight):
            await self.clicks.open_lobby(
                interaction, game, options, on_leave=if_someone_leaves or "skip",
                turn_timer=None if turn_timer is None else turn_timer * 60,
                family_seats=True if family_seats is None else family_seats)

    async def _lobby_command(self, interaction: discord.Interaction, what: str, said: str
                             ) -> None:
        async with refusals(interaction, f"/sequence {what}", self.in_flight):
            table = self.manager.table_for_channel(interaction.channel_id or 0)
            if table is None:
                raise refusal("no_lobby")
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.clicks.lobby_action(interaction, table.game_id, what)
            await done(interaction, said)

    @app_commands.command(name=L("cmd.join.name"), description=L("cmd.join.description"))
    async def join(self, interaction: discord.Interaction) -> None:
        await self._lobby_command(interaction, "join", "reply.joined")

    @app_commands.command(name=L("cmd.start.name"), description=L("cmd.start.description"))
    async def start(self, interaction: discord.Interaction) -> None:
        await self._lobby_command(interaction, "start", "reply.started")

    @app_commands.command(name=L("cmd.remove.name"), description=L("cmd.remove.description"))
    @app_commands.rename(seat=L("opt.seat.name"))
    @app_commands.describe(seat=L("opt.seat.description"))
    async def remove(self, interaction: discord.Interaction,
                     seat: app_commands.Range[int, 1, 4]) -> None:
        async with refusals(interaction, "/sequence remove", self.in_flight):
            table = self._table_here(interaction)
            moderator = is_moderator(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            # the manager decides who may (the host or a moderator) and what it means
            await self.manager.remove_seat(table.game_id, interaction.user.id, seat - 1,
                                           is_moderator=moderator)
            await done(interaction, "reply.removed")

    @app_commands.command(name=L("cmd.leave.name"), description=L("cmd.leave.description"))
    @app_commands.rename(seat=L("opt.which_seat.name"))
    @app_commands.describe(seat=L("opt.which_seat.description"))
    async def leave(self, interaction: discord.Interaction,
                    seat: app_commands.Range[int, 1, 4] | None = None) -> None:
        async with refusals(interaction, "/sequence leave", self.in_flight):
            table = self._table_here(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            if table.status is Status.LOBBY:
                await self.manager.leave(table.game_id, interaction.user.id)
            else:
                await self.manager.leave_game(table.game_id, interaction.user.id,
                                              None if seat is None else seat - 1)
            await done(interaction, "reply.left")

    # ------------------------------------------------------------------ playing
    @app_commands.command(name=L("cmd.play.name"), description=L("cmd.play.description"))
    @app_commands.rename(card=L("opt.card.name"), space=L("opt.space.name"))
    @app_commands.describe(card=L("opt.card.description"), space=L("opt.space.description"))
    async def play(self, interaction: discord.Interaction, card: str | None = None,
                   space: str | None = None) -> None:
        async with refusals(interaction, "/sequence play", self.in_flight):
            table = self._table_here(interaction)
            action = self.action_from(table.game, card, space)
            if action is None:
                raise refusal("need_space" if card else "malformed")
            lang = speaker_lang(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            moved = await self.manager.submit(table.game_id, interaction.user.id, action,
                                              via=via(interaction),
                                              request_id=request_of(interaction))
            await reply(interaction, t("prompt.kept" if moved.kept_after_doubt
                                       else "prompt.played", lang,
                                       move=describe(action, lang)))

    @staticmethod
    def action_from(game: str, card: str | None, space: str | None) -> str | None:
        """The action string for what was typed or picked; None if a part is missing."""
        space = (space or "").strip()
        if game == "dice":
            if not space:
                return None
            picked = as_action(space)  # (autocomplete's value: the move itself)
            if picked is not None and picked.space is not None:
                return picked.text
            return Action("place", space.upper()).text  # (the engine says if it is no space)
        if not card:
            return None
        card = card.strip()
        exchange = as_action(card)
        if exchange is not None and exchange.dead:
            return exchange.text
        card_id = CARD_IDS.get(card.casefold(), card.lower())
        if not space:
            return None
        return Action(card_id, space.upper()).text

    @play.autocomplete("card")
    async def play_card(self, interaction: discord.Interaction, current: str
                        ) -> list[Choice[str]]:
        lang = speaker_lang(interaction)
        legal = self._legal(interaction)
        seen: dict[str, str] = {}
        for act in parsed(legal):
            if act.dead:
                seen[act.text] = t("autocomplete.exchange", lang, card=i18n.card(act.what, lang))
            elif act.space is not None:
                seen[act.what] = i18n.card(act.what, lang)
        needle = current.casefold().strip()
        return [Choice(name=name, value=value) for value, name in seen.items()
                if needle in name.casefold() or needle in value][:25]

    @play.autocomplete("space")
    async def play_space(self, interaction: discord.Interaction, current: str
                         ) -> list[Choice[str]]:
        lang = speaker_lang(interaction)
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        legal = self._legal(interaction)
        needle = current.casefold().strip()
        choices: list[Choice[str]] = []
        moves = [a for a in parsed(legal) if a.space is not None]
        if table is not None and table.game == "dice":
            for n, action in numbered([a.text for a in moves]):
                choices.append(Choice(name=numbered_label(n, action, lang),
                                      value=action))
        else:
            typed = str(getattr(interaction.namespace, "card", "") or "")
            card_id = CARD_IDS.get(typed.casefold(), typed.lower())
            kinds = [card_id] if card_id else list(dict.fromkeys(a.what for a in moves))
            for kind in kinds:
                # numbered as on the choice picture of that card: "Lion - space 2 (B3)"
                for n, act in enumerate((a for a in moves if a.what == kind), start=1):
                    choices.append(Choice(name=t("autocomplete.card_space", lang,
                                                 card=i18n.card(kind, lang), n=n,
                                                 space=act.space),
                                          value=str(act.space)))
            choices = list({c.value: c for c in choices}.values())
        return [c for c in choices if needle in c.name.casefold()][:25]

    def _legal(self, interaction: discord.Interaction) -> list[str]:
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        if table is None or table.status is not Status.PLAYING:
            return []
        if self.manager.seat_of(table.game_id, interaction.user.id) is None:
            return []
        obs = self.manager.observation_for(table.game_id, interaction.user.id)
        if obs.get("turn") != obs.get("seat"):
            return []
        return list(obs.get("legal") or [])

    @app_commands.command(name=L("cmd.roll.name"), description=L("cmd.roll.description"))
    async def roll(self, interaction: discord.Interaction) -> None:
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        if table is None:
            await done(interaction, "reply.no_game_here")
            return
        await self.clicks.roll(interaction, table.game_id, None)

    @app_commands.command(name=L("cmd.hand.name"), description=L("cmd.hand.description"))
    async def hand(self, interaction: discord.Interaction) -> None:
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        if table is None or table.status is not Status.PLAYING:
            await done(interaction, "reply.no_game_here")
            return
        await self.clicks.show_hand(interaction, table.game_id)

    @app_commands.command(name=L("cmd.board.name"), description=L("cmd.board.description"))
    async def board(self, interaction: discord.Interaction) -> None:
        async with refusals(interaction, "/sequence board", self.in_flight):
            table = self._table_here(interaction)
            if table.status is not Status.PLAYING:
                raise refusal("game_not_started")
            lang = self.prefs.table_lang(table)
            # read before the public placeholder: a game that ends meanwhile is refused
            # privately, never in the channel
            obs = self.manager.spectator_observation(table.game_id)
            await interaction.response.defer(thinking=True)
            async with public_placeholder_gone_on_refusal(interaction):
                picture = await board_file(obs, messages.seat_names(table, lang), lang,
                                           table.game_id)
                view = messages.board_view(table, obs, lang)
                await answer(interaction, messages.turn_line(table, lang), ephemeral=False,
                             view=view, allowed_mentions=discord.AllowedMentions.none(),
                             **({} if picture is None else {"file": picture}))

    @app_commands.command(name=L("cmd.hint.name"), description=L("cmd.hint.description"))
    async def hint(self, interaction: discord.Interaction) -> None:
        async with refusals(interaction, "/sequence hint", self.in_flight):
            table = self._table_here(interaction)
            await show_hint(self.manager, interaction, table)

    @app_commands.command(name=L("cmd.resign.name"), description=L("cmd.resign.description"))
    @app_commands.rename(seat=L("opt.which_seat.name"))
    @app_commands.describe(seat=L("opt.which_seat.description"))
    async def resign(self, interaction: discord.Interaction,
                     seat: app_commands.Range[int, 1, 4] | None = None) -> None:
        """``seat``: for a grown-up holding several seats (their own, a child's)."""
        async with refusals(interaction, "/sequence resign", self.in_flight):
            table = self._table_here(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.manager.resign(table.game_id, interaction.user.id,
                                      None if seat is None else seat - 1)
            await done(interaction, "reply.resigned")

    @app_commands.command(name=L("cmd.end.name"), description=L("cmd.end.description"))
    async def end(self, interaction: discord.Interaction) -> None:
        async with refusals(interaction, "/sequence end", self.in_flight):
            table = self._table_here(interaction)
            moderator = is_moderator(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            if table.status is Status.LOBBY:
                if moderator and table.host_id != interaction.user.id:
                    await self.manager.cancel(table.game_id, table.host_id)
                else:
                    await self.manager.cancel(table.game_id, interaction.user.id)
            else:
                await self.manager.end(table.game_id, interaction.user.id,
                                       is_moderator=moderator)
            await done(interaction, "reply.ended")

    @app_commands.command(name=L("cmd.rules.name"), description=L("cmd.rules.description"))
    @app_commands.rename(game=L("opt.game.name"))
    @app_commands.describe(game=L("opt.game.description"))
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str | None = None) -> None:
        async with refusals(interaction, "/sequence rules", self.in_flight):
            await show_rules(self.manager, interaction, game)
