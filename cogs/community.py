"""Everything around the game: ``/sequence stats``, ``leaderboard`` and ``settings``.

The commands join the existing ``/sequence`` group (the ``Sequence`` GroupCog) instead of
making a second top-level command, so this extension loads after ``cogs.sequence``.
Numbers come from the store (finished games only); settings go through the manager, which
checks them; the two layout settings (own thread, tidy boards) are the Discord layer's
own and live in the store's ``guild_table_manners``.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from engine.dice_board import COLOURS as DICE_COLOURS
from engine.kids_board import COLOURS as KIDS_COLOURS
from manager import GameManager
from store import GuildSettings, ResultLine, Standings

from . import i18n
from .i18n import locale_str as L
from .i18n import t
from .sequence import GAME_CHOICES, LENGTH_CHOICES, LEVEL_CHOICES
from .table.manners import Layout, TableManners
from .table.messages import minutes
from .table.prefs import Preferences, speaker_lang
from .table.replies import InFlight, answer, refusal, refusals, reply

log = logging.getLogger(__name__)

MIN_GAMES = 3  # to appear on the leaderboard: one lucky win does not make a champion
TOP = 10
MEDALS = ("🥇", "🥈", "🥉")
SIDE_COLOURS = {"kids": KIDS_COLOURS, "dice": DICE_COLOURS}
GROUP = "sequence"


@dataclass(frozen=True)
class Form:
    """What the results say beyond the store's counts: streaks and a favourite colour."""

    streak: int  # wins in a row up to the newest game
    best_streak: int
    favourite_colour: str | None


def form_of(results: Sequence[ResultLine]) -> Form:
    """Streaks and favourite colour from results newest first.

    >>> r = [ResultLine(3, "kids", 0, "win", 3.0), ResultLine(2, "kids", 1, "loss", 2.0),
    ...      ResultLine(1, "dice", 0, "win", 1.0)]
    >>> form_of(r)
    Form(streak=1, best_streak=1, favourite_colour='red')
    """
    streak = 0
    for line in results:
        if line.outcome != "win":
            break
        streak += 1
    best = run = 0
    for line in reversed(results):
        run = run + 1 if line.outcome == "win" else 0
        best = max(best, run)
    counts: Counter[str] = Counter()
    newest: dict[str, int] = {}
    for age, line in enumerate(results):
        colours = SIDE_COLOURS.get(line.kind, ())
        if 0 <= line.side < len(colours):
            colour = colours[line.side]
            counts[colour] += 1
            newest.setdefault(colour, age)
    favourite = (min(counts, key=lambda c: (-counts[c], newest[c])) if counts else None)
    return Form(streak, best, favourite)


def percent(rate: float) -> str:
    return f"{round(rate * 100)}%"


class Community(commands.Cog):
    """Stats, the leaderboard and the server's settings (subcommands of ``/sequence``)."""

    def __init__(self, bot: commands.Bot, manager: GameManager, prefs: Preferences,
                 standings: Standings, layout: Layout, in_flight: InFlight | None = None
                 ) -> None:
        """``in_flight``: the desk's count of handlers under way (a clean stop waits)."""
        self.bot = bot
        self.in_flight = in_flight
        self.manager = manager
        self.prefs = prefs
        self.standings = standings
        self.layout = layout

    async def cog_load(self) -> None:
        """Move this cog's commands under ``/sequence`` (the tree would otherwise add them
        at the top level)."""
        group = self.bot.tree.get_command(GROUP)
        if not isinstance(group, app_commands.Group):
            raise RuntimeError("load cogs.sequence before cogs.community")
        for command in self.__cog_app_commands__:
            group.add_command(command)
        self._moved = list(self.__cog_app_commands__)
        self.__cog_app_commands__ = []

    async def cog_unload(self) -> None:
        group = self.bot.tree.get_command(GROUP)
        if isinstance(group, app_commands.Group):
            for command in getattr(self, "_moved", []):
                group.remove_command(command.name)

    def _guild_name(self, interaction: discord.Interaction) -> str:
        return interaction.guild.name if interaction.guild else ""

    # ------------------------------------------------------------------ stats
    @app_commands.command(name=L("cmd.stats.name"), description=L("cmd.stats.description"))
    @app_commands.rename(user=L("opt.user.name"), game=L("opt.game.name"))
    @app_commands.describe(user=L("opt.user.description"), game=L("opt.stats_game.description"))
    @app_commands.choices(game=GAME_CHOICES)
    async def stats(self, interaction: discord.Interaction, user: discord.User | None = None,
                    game: str | None = None) -> None:
        async with refusals(interaction, "/sequence stats", self.in_flight, reading=True):
            lang = speaker_lang(interaction)
            guild_id = interaction.guild_id
            if guild_id is None:
                raise refusal("server_only")
            who = user or interaction.user
            if who.bot:
                await reply(interaction, t("stats.computer", lang))
                return
            await interaction.response.defer(ephemeral=True, thinking=True)
            record = await self.standings.stats(who.id, guild_id=guild_id, kind=game)
            name = getattr(who, "display_name", who.name)
            if record.games == 0:
                await reply(interaction, t("stats.none", lang, name=name))
                return
            form = form_of(await self.standings.results_of(who.id, guild_id=guild_id, kind=game))
            title = (t("stats.title.kind", lang, name=name, game=t(f"game.{game}", lang),
                       guild=self._guild_name(interaction)) if game
                     else t("stats.title", lang, name=name, guild=self._guild_name(interaction)))
            embed = discord.Embed(title=title, colour=discord.Colour.gold())
            colour = (t(f"colour.{form.favourite_colour}", lang) if form.favourite_colour
                      else t("stats.no_colour", lang))
            for key, value in (("stats.games", str(record.games)),
                               ("stats.wins", str(record.wins)),
                               ("stats.win_rate", percent(record.win_rate)),
                               ("stats.streak", str(form.streak)),
                               ("stats.best_streak", str(form.best_streak)),
                               ("stats.favourite", colour)):
                embed.add_field(name=t(key, lang), value=value, inline=True)
            for kind, k in sorted(record.per_kind.items()):
                embed.add_field(name=t(f"game.{kind}", lang), inline=False, value=t(
                    "stats.kind_line", lang, games=k.games, wins=k.wins, losses=k.losses,
                    draws=k.draws, rate=percent(k.win_rate)))
            children = await self.standings.children_of(who.id, guild_id=guild_id, kind=game)
            if children:  # family seats played from this account, each apart from the account
                lines = []
                for child in children:
                    kid = await self.standings.stats(who.id, guild_id=guild_id, kind=game,
                                                     child=child)
                    lines.append(t("stats.child_line", lang,
                                   name=discord.utils.escape_markdown(child), games=kid.games,
                                   wins=kid.wins, rate=percent(kid.win_rate)))
                embed.add_field(name=t("stats.children", lang), value="\n".join(lines),
                                inline=False)
            avatar = getattr(who, "display_avatar", None)
            if avatar is not None:
                embed.set_thumbnail(url=avatar.url)
            await reply(interaction, "", embed=embed)

    # ------------------------------------------------------------------ leaderboard
    @app_commands.command(name=L("cmd.leaderboard.name"),
                          description=L("cmd.leaderboard.description"))
    @app_commands.rename(game=L("opt.game.name"))
    @app_commands.describe(game=L("opt.stats_game.description"))
    @app_commands.choices(game=GAME_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction, game: str | None = None
                          ) -> None:
        async with refusals(interaction, "/sequence leaderboard", self.in_flight,
                            reading=True):
            lang = speaker_lang(interaction)
            guild_id = interaction.guild_id
            if guild_id is None:
                raise refusal("server_only")
            await interaction.response.defer(thinking=True)
            people = await self.standings.ranking(guild_id, kind=game, min_games=MIN_GAMES,
                                              limit=TOP)
            levels = await self.standings.computer_standings(guild_id, kind=game)
            guild = self._guild_name(interaction)
            title = (t("leaderboard.title.kind", lang, game=t(f"game.{game}", lang), guild=guild)
                     if game else t("leaderboard.title", lang, guild=guild))
            embed = discord.Embed(title=title, colour=discord.Colour.gold())
            rows = [t("leaderboard.row", lang, medal=MEDALS[i] if i < len(MEDALS) else f"{i + 1}.",
                      name=discord.utils.escape_markdown(
                          row.name if row.guardian is None else
                          t("leaderboard.child_name", lang, name=row.name,
                            grown_up=row.guardian)), wins=row.wins,
                      games=row.games, rate=percent(row.win_rate))
                    for i, row in enumerate(people)]
            embed.add_field(name=t("leaderboard.people", lang, n=MIN_GAMES), inline=False,
                            value="\n".join(rows) or t("leaderboard.nobody", lang, n=MIN_GAMES))
            cpu = [t("leaderboard.computer_row", lang,
                     level=t("computer.name", lang, level=t(f"level.{row.level}", lang)),
                     wins=row.wins, games=row.games, rate=percent(row.win_rate))
                   for row in levels]
            embed.add_field(name=t("leaderboard.computers", lang), inline=False,
                            value="\n".join(cpu) or t("leaderboard.no_computers", lang))
            embed.set_footer(text=t("leaderboard.footer", lang))
            # names only, no pings: a leaderboard is read, not a call to play
            await answer(interaction, embed=embed, ephemeral=False,
                         allowed_mentions=discord.AllowedMentions.none())

    # ------------------------------------------------------------------ settings
    @app_commands.command(name=L("cmd.settings.name"), description=L("cmd.settings.description"))
    @app_commands.rename(language=L("opt.language.name"), turn_timer=L("opt.turn_timer.name"),
                         on_timeout=L("opt.timeout_action.name"),
                         defaults_for=L("opt.default_game.name"), level=L("opt.level.name"),
                         sequence_length=L("opt.sequence_length.name"), teams=L("opt.teams.name"),
                         own_thread=L("opt.own_thread.name"), tidy_boards=L("opt.tidy_boards.name"))
    @app_commands.describe(language=L("opt.language.description"),
                           turn_timer=L("opt.turn_timer.description"),
                           on_timeout=L("opt.timeout_action.description"),
                           defaults_for=L("opt.default_game.description"),
                           level=L("opt.level.description"),
                           sequence_length=L("opt.sequence_length.description"),
                           teams=L("opt.teams.description"),
                           own_thread=L("opt.own_thread.description"),
                           tidy_boards=L("opt.tidy_boards.description"))
    @app_commands.choices(  # type: ignore[misc]  # str and int choices
        language=[Choice(name=L(f"choice.language.{v}"), value=v) for v in i18n.LANGUAGES],
        on_timeout=[Choice(name=L(f"choice.timeout.{v}"), value=v) for v in ("computer", "skip")],
        defaults_for=GAME_CHOICES, level=LEVEL_CHOICES, sequence_length=LENGTH_CHOICES)
    async def settings(self, interaction: discord.Interaction, language: str | None = None,
                       turn_timer: app_commands.Range[int, 0, 1440] | None = None,
                       on_timeout: str | None = None, defaults_for: str | None = None,
                       level: str | None = None, sequence_length: int | None = None,
                       teams: bool | None = None, own_thread: bool | None = None,
                       tidy_boards: bool | None = None) -> None:
        async with refusals(interaction, "/sequence settings", self.in_flight):
            lang = speaker_lang(interaction)
            guild_id = interaction.guild_id
            if guild_id is None:
                raise refusal("server_only")
            if not interaction.permissions.manage_guild:
                raise refusal("need_manage_server")
            options: dict[str, Any] = {k: v for k, v in (
                ("level", level), ("sequence_length", sequence_length), ("teams", teams))
                if v is not None}
            problem = _defaults_problem(defaults_for, options)
            if problem:
                await reply(interaction, t(problem, lang))
                return
            await interaction.response.defer(ephemeral=True, thinking=True)
            changes: dict[str, Any] = {}
            if language is not None:
                changes["locale"] = language
            elif not self.prefs.has_chosen_language(guild_id):
                # the first save writes a row, and its language wins from then on: keep the
                # language the channel had (the server's own) unless one is chosen
                changes["locale"] = self.prefs.guild_lang(guild_id)
            if turn_timer is not None:
                changes["turn_timer"] = None if turn_timer == 0 else turn_timer * 60
            if on_timeout is not None:
                changes["timeout_action"] = on_timeout
            if defaults_for is not None and options:
                current = await self.manager.guild_settings(guild_id)
                defaults = {g: dict(o) for g, o in current.defaults.items()}
                defaults[defaults_for] = {**defaults.get(defaults_for, {}), **options}
                changes["defaults"] = defaults
            asked = (language, turn_timer, on_timeout, defaults_for, own_thread, tidy_boards)
            changed = any(v is not None for v in asked)
            if changed:
                saved = await self.manager.set_guild_settings(guild_id, **changes)
                self.prefs.language_chosen(guild_id, saved.locale)
            manners = await self.layout.table_manners(guild_id)
            if own_thread is not None or tidy_boards is not None:
                manners = TableManners(
                    guild_id, own_thread=manners.own_thread if own_thread is None else own_thread,
                    tidy_boards=manners.tidy_boards if tidy_boards is None else tidy_boards)
                await self.layout.save_table_manners(manners)
                self.prefs.layout_chosen(guild_id, own_thread=manners.own_thread,
                                         tidy_boards=manners.tidy_boards)
            current = await self.manager.guild_settings(guild_id)
            header = t("settings.changed" if changed else "settings.shown", lang,
                       guild=self._guild_name(interaction))
            embed = settings_embed(current, manners, lang, self._guild_name(interaction),
                                   self.prefs.guild_lang(guild_id))
            await reply(interaction, header, embed=embed)


def _defaults_problem(game: str | None, options: dict[str, Any]) -> str | None:
    """The key of what is wrong with the default options asked for, or None."""
    if options and game is None:
        return "settings.need_game"
    if game == "dice" and "level" in options:
        return "settings.level_is_kids"
    if game == "kids" and "sequence_length" in options:
        return "settings.length_is_dice"
    return None


def settings_embed(s: GuildSettings, manners: TableManners, lang: str, guild: str,
                   channel_lang: str) -> discord.Embed:
    """The server's settings as the admin reads them back."""
    def on_off(value: bool) -> str:
        return t("word.on" if value else "word.off", lang)

    timer = (t("settings.timer.minutes", lang, minutes=minutes(s.turn_timer))
             if s.turn_timer else t("settings.timer.off", lang))
    embed = discord.Embed(title=t("settings.title", lang, guild=guild),
                          colour=discord.Colour.blurple())
    embed.add_field(name=t("settings.language", lang),
                    value=t(f"choice.language.{channel_lang}", lang))
    embed.add_field(name=t("settings.turn_timer", lang), value=timer)
    embed.add_field(name=t("settings.timeout_action", lang),
                    value=t(f"choice.timeout.{s.timeout_action}", lang))
    embed.add_field(name=t("settings.defaults", lang), inline=False,
                    value=describe_defaults(s.defaults, lang))
    embed.add_field(name=t("settings.own_thread", lang), value=on_off(manners.own_thread))
    embed.add_field(name=t("settings.tidy_boards", lang), value=on_off(manners.tidy_boards))
    embed.set_footer(text=t("settings.note", lang))
    return embed


def describe_defaults(defaults: dict[str, dict[str, Any]], lang: str) -> str:
    """``Sequence for Kids: Beginner 2`` per game with defaults, one line each."""
    lines = []
    for game in ("kids", "dice"):
        opts = defaults.get(game) or {}
        words = []
        if "level" in opts:
            words.append(t(f"choice.level.{opts['level']}", lang))
        if "sequence_length" in opts:
            words.append(t(f"choice.length.{opts['sequence_length']}", lang))
        if "teams" in opts:
            words.append(t("lobby.teams", lang,
                           teams=t("word.yes" if opts["teams"] else "word.no", lang)))
        if words:
            lines.append(f"{t(f'game.{game}', lang)}: {', '.join(words)}")
    return "\n".join(lines) or t("settings.defaults.none", lang)

