"""``/sequence ...``: the slash commands, and the extension that sets up the dealer.

Every command asks the manager (through the dealer) and answers with what it says; no
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

from engine.manager import GameManager

from . import i18n
from .buttons import ALL_ITEMS
from .dealer import Dealer, _refusal
from .hints import show_hint
from .i18n import locale_str as L
from .i18n import t
from .rules import show_rules

log = logging.getLogger(__name__)

GAME_CHOICES: list[Choice[str]] = [Choice(name=L("choice.kids"), value="kids"),
                Choice(name=L("choice.dice"), value="dice")]
LEVEL_CHOICES: list[Choice[str]] = [Choice(name=L(f"choice.level.{v}"), value=v)
                                    for v in ("1", "2", "3", "normal")]
LENGTH_CHOICES: list[Choice[int]] = [Choice(name=L(f"choice.length.{v}"), value=v)
                                     for v in (5, 6)]


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


class Sequence(commands.GroupCog, group_name=L("cmd.sequence.name"),
               group_description=L("cmd.sequence.description")):
    """The ``/sequence`` command group."""

    def __init__(self, bot: commands.Bot, dealer: Dealer) -> None:
        self.bot = bot
        self.dealer = dealer
        self.manager: GameManager = dealer.manager
        self._recovered = False
        super().__init__()

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        # once per process (on_ready fires again after a fresh IDENTIFY)
        if not self._recovered:
            self._recovered = True
            await self.dealer.recover()

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Answer a click that no button of ours understands (an older version's button,
        a truncated or forged id): otherwise discord.py drops it and Discord shows "This
        interaction failed"."""
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = str((interaction.data or {}).get("custom_id") or "")
        if not custom_id.startswith("seq:") or self._understood(custom_id):
            return
        log.info("unknown button %r from user %d", custom_id, interaction.user.id)
        try:
            await interaction.response.send_message(
                t("error.stale_button", self.dealer.lang(interaction)), ephemeral=True)
        except discord.HTTPException:
            log.debug("could not answer an unknown button", exc_info=True)

    def _understood(self, custom_id: str) -> bool:
        # every DynamicItem registered on the bot, by any cog (discord.py keeps them in its
        # view store; there is no public accessor)
        store = getattr(self.bot._connection, "_view_store", None)
        patterns = getattr(store, "_dynamic_items", None)
        if patterns is None:
            return True  # cannot tell: stay silent rather than answer twice
        return any(pattern.fullmatch(custom_id) for pattern in patterns)

    # ------------------------------------------------------------------ helpers
    def _table_here(self, interaction: discord.Interaction) -> Any:
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        if table is None:
            raise _refusal("no_game_here")
        return table

    async def _done(self, interaction: discord.Interaction, key: str) -> None:
        await self.dealer.reply(interaction, t(key, self.dealer.lang(interaction)))

    # ------------------------------------------------------------------ lobby
    @app_commands.command(name=L("cmd.new.name"), description=L("cmd.new.description"))
    @app_commands.rename(game=L("opt.game.name"), level=L("opt.level.name"),
                         sequence_length=L("opt.sequence_length.name"), teams=L("opt.teams.name"))
    @app_commands.describe(game=L("opt.game.description"), level=L("opt.level.description"),
                           sequence_length=L("opt.sequence_length.description"),
                           teams=L("opt.teams.description"))
    @app_commands.choices(game=GAME_CHOICES, level=LEVEL_CHOICES, sequence_length=LENGTH_CHOICES)  # type: ignore[misc]  # str and int choices
    @app_commands.guild_only()
    async def new(self, interaction: discord.Interaction, game: str, level: str | None = None,
                  sequence_length: int | None = None, teams: bool | None = None) -> None:
        options: dict[str, Any] = {}
        if level is not None:
            options["level"] = level
        if sequence_length is not None:
            options["sequence_length"] = sequence_length
        if teams is not None:
            options["teams"] = teams

        async def work() -> None:
            await self.dealer.open_lobby(interaction, game, options)

        await self.dealer.guarded(interaction, work, "/sequence new")

    async def _lobby_command(self, interaction: discord.Interaction, what: str, done: str
                             ) -> None:
        async def work() -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.dealer.lobby_action(interaction, interaction.channel_id or 0, what)
            await self._done(interaction, done)

        await self.dealer.guarded(interaction, work, f"/sequence {what}")

    @app_commands.command(name=L("cmd.join.name"), description=L("cmd.join.description"))
    @app_commands.guild_only()
    async def join(self, interaction: discord.Interaction) -> None:
        await self._lobby_command(interaction, "join", "reply.joined")

    @app_commands.command(name=L("cmd.start.name"), description=L("cmd.start.description"))
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction) -> None:
        await self._lobby_command(interaction, "start", "reply.started")

    @app_commands.command(name=L("cmd.remove.name"), description=L("cmd.remove.description"))
    @app_commands.rename(seat=L("opt.seat.name"))
    @app_commands.describe(seat=L("opt.seat.description"))
    @app_commands.guild_only()
    async def remove(self, interaction: discord.Interaction,
                     seat: app_commands.Range[int, 1, 4]) -> None:
        async def work() -> None:
            table = self._table_here(interaction)
            perms = interaction.permissions
            moderator = perms.manage_channels or perms.manage_guild
            await interaction.response.defer(ephemeral=True, thinking=True)
            # the manager decides who may (the host or a moderator) and what it means
            await self.manager.remove_seat(table.channel_id, interaction.user.id, seat - 1,
                                           is_moderator=moderator)
            await self._done(interaction, "reply.removed")

        await self.dealer.guarded(interaction, work, "/sequence remove")

    @app_commands.command(name=L("cmd.leave.name"), description=L("cmd.leave.description"))
    @app_commands.guild_only()
    async def leave(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            table = self._table_here(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            if table.status == "lobby":
                await self.manager.leave(table.channel_id, interaction.user.id)
            else:
                await self.manager.leave_game(table.game_id, interaction.user.id)
            await self._done(interaction, "reply.left")

        await self.dealer.guarded(interaction, work, "/sequence leave")

    # ------------------------------------------------------------------ playing
    @app_commands.command(name=L("cmd.play.name"), description=L("cmd.play.description"))
    @app_commands.rename(card=L("opt.card.name"), space=L("opt.space.name"))
    @app_commands.describe(card=L("opt.card.description"), space=L("opt.space.description"))
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction, card: str | None = None,
                   space: str | None = None) -> None:
        async def work() -> None:
            table = self._table_here(interaction)
            action = self.action_from(table.game, card, space)
            if action is None:
                raise _refusal("need_space" if card else "malformed")
            lang = self.dealer.lang(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.manager.submit(table.game_id, interaction.user.id, action)
            await self.dealer.reply(interaction, t("prompt.played", lang,
                                                   move=self.dealer.describe(action, lang)))

        await self.dealer.guarded(interaction, work, "/sequence play")

    @staticmethod
    def action_from(game: str, card: str | None, space: str | None) -> str | None:
        """The action string for what was typed or picked; None if a part is missing."""
        space = (space or "").strip()
        if game == "dice":
            if not space:
                return None
            return space.lower() if "@" in space else f"place@{space.upper()}"
        if not card:
            return None
        card = card.strip()
        if card.lower().startswith("dead:"):
            return card.lower()
        card_id = CARD_IDS.get(card.casefold(), card.lower())
        if not space:
            return None
        return f"{card_id}@{space.upper()}"

    @play.autocomplete("card")
    async def play_card(self, interaction: discord.Interaction, current: str
                        ) -> list[Choice[str]]:
        lang = self.dealer.lang(interaction)
        legal = self._legal(interaction)
        seen: dict[str, str] = {}
        for action in legal:
            kind = action.split("@")[0]
            if kind.startswith("dead:"):
                seen[kind] = t("autocomplete.exchange", lang, card=i18n.card(kind[5:], lang))
            elif "@" in action:
                seen[kind] = i18n.card(kind, lang)
        needle = current.casefold().strip()
        return [Choice(name=name, value=value) for value, name in seen.items()
                if needle in name.casefold() or needle in value][:25]

    @play.autocomplete("space")
    async def play_space(self, interaction: discord.Interaction, current: str
                         ) -> list[Choice[str]]:
        lang = self.dealer.lang(interaction)
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        legal = self._legal(interaction)
        needle = current.casefold().strip()
        choices: list[Choice[str]] = []
        if table is not None and table.game == "dice":
            for action in legal:
                kind, _, space = action.partition("@")
                if space:
                    choices.append(Choice(name=t(f"autocomplete.{kind}", lang, space=space),
                                          value=action))
        else:
            typed = str(getattr(interaction.namespace, "card", "") or "")
            card_id = CARD_IDS.get(typed.casefold(), typed.lower())
            for action in legal:
                kind, _, space = action.partition("@")
                if space and (not card_id or kind == card_id):
                    choices.append(Choice(name=space, value=space))
            choices = list({c.value: c for c in choices}.values())
        return [c for c in choices if needle in c.name.casefold()][:25]

    def _legal(self, interaction: discord.Interaction) -> list[str]:
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        if table is None or table.status != "playing":
            return []
        if self.manager.seat_of(table.game_id, interaction.user.id) is None:
            return []
        obs = self.manager.observation_for(table.game_id, interaction.user.id)
        if obs.get("turn") != obs.get("seat"):
            return []
        return list(obs.get("legal") or [])

    @app_commands.command(name=L("cmd.roll.name"), description=L("cmd.roll.description"))
    @app_commands.guild_only()
    async def roll(self, interaction: discord.Interaction) -> None:
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        if table is None:
            await self._done(interaction, "reply.no_game_here")
            return
        await self.dealer.roll(interaction, table.game_id, None)

    @app_commands.command(name=L("cmd.hand.name"), description=L("cmd.hand.description"))
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction) -> None:
        table = self.manager.table_for_channel(interaction.channel_id or 0)
        if table is None or table.status != "playing":
            await self._done(interaction, "reply.no_game_here")
            return
        await self.dealer.show_hand(interaction, table.game_id)

    @app_commands.command(name=L("cmd.board.name"), description=L("cmd.board.description"))
    @app_commands.guild_only()
    async def board(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            table = self._table_here(interaction)
            if table.status != "playing":
                raise _refusal("game_not_started")
            await interaction.response.defer(thinking=True)
            lang = self.dealer.guild_lang(table.guild_id)
            obs = self.manager.spectator_observation(table.game_id)
            picture = await self.dealer.board_file(obs, table, lang)
            view = self.dealer.board_view(table, obs, lang)
            view.stop()  # its buttons are dynamic items, found by custom_id
            await interaction.followup.send(
                self.dealer.turn_line(table, lang), file=picture or discord.utils.MISSING,
                view=view, allowed_mentions=discord.AllowedMentions.none())

        await self.dealer.guarded(interaction, work, "/sequence board")

    @app_commands.command(name=L("cmd.hint.name"), description=L("cmd.hint.description"))
    @app_commands.guild_only()
    async def hint(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            table = self._table_here(interaction)
            await show_hint(self.dealer, interaction, table)

        await self.dealer.guarded(interaction, work, "/sequence hint")

    @app_commands.command(name=L("cmd.resign.name"), description=L("cmd.resign.description"))
    @app_commands.guild_only()
    async def resign(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            table = self._table_here(interaction)
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self.manager.resign(table.game_id, interaction.user.id)
            await self._done(interaction, "reply.resigned")

        await self.dealer.guarded(interaction, work, "/sequence resign")

    @app_commands.command(name=L("cmd.end.name"), description=L("cmd.end.description"))
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        async def work() -> None:
            table = self._table_here(interaction)
            perms = interaction.permissions
            moderator = perms.manage_channels or perms.manage_guild
            await interaction.response.defer(ephemeral=True, thinking=True)
            if table.status == "lobby":
                if moderator and table.host_id != interaction.user.id:
                    await self.manager.cancel(table.channel_id, table.host_id)
                else:
                    await self.manager.cancel(table.channel_id, interaction.user.id)
            else:
                await self.manager.end(table.game_id, interaction.user.id,
                                       is_moderator=moderator)
            await self._done(interaction, "reply.ended")

        await self.dealer.guarded(interaction, work, "/sequence end")

    @app_commands.command(name=L("cmd.rules.name"), description=L("cmd.rules.description"))
    @app_commands.rename(game=L("opt.game.name"))
    @app_commands.describe(game=L("opt.game.description"))
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str | None = None) -> None:
        async def work() -> None:
            await show_rules(self.dealer, interaction, game)

        await self.dealer.guarded(interaction, work, "/sequence rules")


async def setup(bot: commands.Bot) -> None:
    """Load the extension: needs ``bot.manager`` (a started ``GameManager``)."""
    manager: GameManager = bot.manager  # type: ignore[attr-defined]
    dealer = Dealer(bot, manager)
    bot.dealer = dealer  # type: ignore[attr-defined]
    manager.add_listener(dealer)
    bot.add_dynamic_items(*ALL_ITEMS)
    await bot.add_cog(Sequence(bot, dealer))


async def teardown(bot: commands.Bot) -> None:
    dealer = getattr(bot, "dealer", None)
    if dealer is not None:
        dealer.cancel_retries()
        bot.manager.remove_listener(dealer)  # type: ignore[attr-defined]
        bot.remove_dynamic_items(*ALL_ITEMS)
