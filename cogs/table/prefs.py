"""Who reads in which language, and how each server lays its games out.

The only writer of these preferences: ``/sequence settings`` tells this object what
changed (after the store saved it), interactions tell it which language a person reads.
Loaded from the store when the bot starts, before any cog, so a cog that fails to load
never costs a server its language or layout. With several processes on one database,
another process may change them: ``follow`` reads them again every few seconds.
"""

from __future__ import annotations

import asyncio
import logging

import discord

from manager import TableView
from store import GameLog, Store, StoreUnavailable

from ..i18n import lang_of
from .manners import Layout

log = logging.getLogger(__name__)

FOLLOW_EVERY = 10.0  # seconds: several processes read the servers' preferences again (a default)


class Preferences:
    """Per-server language, own-thread and tidy-boards settings; per-person language."""

    def __init__(self, bot: discord.Client) -> None:
        self._bot = bot
        self._server_lang: dict[int, str] = {}  # a server's chosen language
        self._tidy: set[int] = set()  # servers that keep only the latest board
        self._threads: set[int] = set()  # servers whose games run in threads of their own
        # the language each person's client shows, as last seen: their DMs use it
        self._user_lang: dict[int, str] = {}
        self._following: asyncio.Task[None] | None = None

    async def load(self, games: GameLog, layout: Layout) -> None:
        self._server_lang = await games.guild_locales()
        self._tidy = await layout.tidy_guilds()
        self._threads = await layout.thread_guilds()

    def follow(self, store: Store, layout: Layout, every: float = FOLLOW_EVERY) -> None:
        """With other processes sharing the store, read the preferences again every
        ``every`` seconds (a setting changed through another one shows here within that
        time; a process sees its own changes at once). Alone, there is nothing to
        follow."""
        if store.shared and self._following is None:
            self._following = asyncio.create_task(
                self._follow(store.games, layout, every), name="follow-preferences")

    def stop(self) -> None:
        if self._following is not None:
            self._following.cancel()
            self._following = None

    async def _follow(self, games: GameLog, layout: Layout, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                await self.load(games, layout)
            except StoreUnavailable:
                pass  # the database is away for a while (said once, by the store)
            except Exception:
                log.warning("could not read the servers' preferences again", exc_info=True)

    # ------------------------------------------------------------------ languages
    def guild_lang(self, guild_id: int | None) -> str:
        """The language of a server's channel messages: its choice, else its locale."""
        if guild_id is not None and guild_id in self._server_lang:
            return self._server_lang[guild_id]
        guild = self._bot.get_guild(guild_id) if guild_id else None
        return lang_of(guild.preferred_locale if guild else None)

    def has_chosen_language(self, guild_id: int) -> bool:
        return guild_id in self._server_lang

    def heard_from(self, interaction: discord.Interaction) -> None:
        """Remember the language this person's Discord shows (for their DMs later)."""
        self._user_lang[interaction.user.id] = lang_of(interaction.locale)

    def table_lang(self, table: TableView) -> str:
        """The language of a table's channel messages: its server's, or, for a game in
        the bot's own DM (no server), the language of the person whose DM it is."""
        if table.guild_id is None:
            return self.user_lang(table.host_id, None)
        return self.guild_lang(table.guild_id)

    def user_lang(self, user_id: int, guild_id: int | None) -> str:
        """A person's language, else their server's."""
        return self._user_lang.get(user_id) or self.guild_lang(guild_id)

    # ------------------------------------------------------------------ layout
    def tidies(self, guild_id: int | None) -> bool:
        return guild_id is not None and guild_id in self._tidy

    def tidies_table(self, table: TableView) -> bool:
        """Whether only the newest board of ``table`` stays: its server asks so, or it is
        a game in the bot's own DM, where the hand message stays where it was sent and the
        boards piling up under it would push it out of sight (one board, by the hand)."""
        return table.guild_id is None or self.tidies(table.guild_id)

    def uses_threads(self, guild_id: int | None) -> bool:
        return guild_id is not None and guild_id in self._threads

    # ------------------------------------------------------------------ changes
    def language_chosen(self, guild_id: int, lang: str) -> None:
        self._server_lang[guild_id] = lang

    def layout_chosen(self, guild_id: int, *, own_thread: bool, tidy_boards: bool) -> None:
        for on, guilds in ((tidy_boards, self._tidy), (own_thread, self._threads)):
            if on:
                guilds.add(guild_id)
            else:
                guilds.discard(guild_id)


def speaker_lang(interaction: discord.Interaction) -> str:
    """The language to answer this interaction in (the reader's own): a pure getter."""
    return lang_of(interaction.locale)


