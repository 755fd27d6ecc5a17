"""What the bot has posted in each game's channel, and the one way to post there.

The owner of the channel-side bookkeeping: each lobby's message, each game's newest board
(and how many boards got through, for recovery), the thread a game moved to, lobbies
being seated by a rematch. Every per-game entry is dropped by ``forget`` when the game
ends, so a bot that plays for months holds only what its live games need.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord

from engine import Refusal
from engine.manager import GameManager, TableView
from engine.observation import Observation

from ..i18n import t
from . import messages
from .pace import ChannelPace
from .pictures import BOARD, board_file
from .prefs import Preferences

log = logging.getLogger(__name__)

SENDING_FAILED = (discord.HTTPException, aiohttp.ClientError, OSError)


@dataclass
class BoardsPosted:
    """How many boards this process got through for a game, and what the newest shows."""

    count: int = 0
    alt: str = ""
    ply: int = -1  # the newest move whose board got through


class Posts:
    """Posts in a game's channel (or the thread it moved to) and remembers what it posted."""

    def __init__(self, bot: discord.Client, manager: GameManager, prefs: Preferences,
                 pace: ChannelPace | None = None) -> None:
        self._bot = bot
        self._manager = manager
        self._prefs = prefs
        self._pace = pace or ChannelPace()
        self._lobbies: dict[int, tuple[int, int]] = {}  # game -> (channel, message)
        self._held: set[int] = set()  # lobbies a Rematch is filling: shown once, when full
        self._last_board: dict[int, int] = {}  # game -> its newest board message
        self._boards: dict[int, BoardsPosted] = {}
        self._moved_to: dict[int, int] = {}  # game -> the thread it moved to
        self._thread_parent: dict[int, int] = {}  # thread this process opened -> its channel

    def forget(self, game_id: int) -> None:
        """The game is over (or its lobby cancelled): drop everything kept for it."""
        self._lobbies.pop(game_id, None)
        self._held.discard(game_id)
        self._last_board.pop(game_id, None)
        self._boards.pop(game_id, None)
        thread = self._moved_to.pop(game_id, None)
        if thread is not None:
            self._thread_parent.pop(thread, None)

    def tracked_games(self) -> int:
        """How many games this object holds anything for (a leak shows here)."""
        return len(set(self._lobbies) | self._held | set(self._last_board) | set(self._boards)
                   | set(self._moved_to))

    # ------------------------------------------------------------------ sending
    def where(self, table: TableView) -> int:
        """The channel a game is played in now."""
        # events committed before the game moved to its thread still name the old channel
        return self._moved_to.get(table.game_id, table.channel_id)

    def channel(self, table: TableView) -> discord.PartialMessageable:
        return self._bot.get_partial_messageable(self.where(table), guild_id=table.guild_id)

    async def post(self, table: TableView, *, channel_id: int | None = None, **kwargs: Any
                   ) -> discord.Message | None:
        """Send to the table's channel (or ``channel_id``); None, logged, if Discord refused."""
        kwargs.setdefault("allowed_mentions", discord.AllowedMentions(users=True))
        if "file" in kwargs and kwargs["file"] is None:
            del kwargs["file"]
        if kwargs.get("view") is None:
            kwargs.pop("view", None)
        target = self.where(table) if channel_id is None else channel_id
        await self._pace.turn(target)  # never more than Discord's rate in one channel
        try:
            where = self._bot.get_partial_messageable(target, guild_id=table.guild_id)
            message = await where.send(**kwargs)
        except SENDING_FAILED:
            log.exception("could not post in channel %d for game %d", table.channel_id,
                          table.game_id)
            return None
        picture = kwargs.get("file")
        if isinstance(picture, discord.File) and picture.filename == BOARD:
            boards = self._boards.setdefault(table.game_id, BoardsPosted())
            boards.count += 1
            boards.alt = picture.description or ""
        return message

    async def post_board(self, table: TableView, obs: Observation, content: str, *,
                         view: discord.ui.View | None, ply: int, lang: str,
                         allowed_mentions: discord.AllowedMentions | None = None,
                         tidy: bool = True, only_if: Callable[[], bool] | None = None,
                         nonce: str | None = None) -> discord.Message | None:
        """The one way a board goes out: picture, words, buttons; remembered as the newest
        board (``ply``: the move it shows) and, where the server tidies, the one before
        it deleted. ``only_if``: asked once the picture is drawn (drawing takes a while);
        False posts nothing (e.g. a newer move's own board is on its way).

        Sent with a nonce Discord enforces (``nonce``, else ``board:<game>:<the table's
        ply>``, the moment shown, which a move's ``ply`` is not: that is its index): a second
        board of the same moment within minutes (a retry whose first try did get through,
        or another process showing the table again) returns the first, never a copy."""
        picture = await board_file(messages.as_shown(table, obs),
                                   messages.seat_names(table, lang), lang, table.game_id)
        if only_if is not None and not only_if():
            return None
        kwargs: dict[str, Any] = {"content": content, "file": picture, "view": view,
                                  "nonce": nonce or f"board:{table.game_id}:{table.ply}"}
        if allowed_mentions is not None:
            kwargs["allowed_mentions"] = allowed_mentions
        message = await self.post(table, **kwargs)
        if message is not None:
            boards = self._boards.setdefault(table.game_id, BoardsPosted())
            boards.ply = max(ply, boards.ply)
        if tidy:
            await self._tidy(table, message)
        return message

    def boards_posted(self, game_id: int) -> BoardsPosted:
        """What this process got through for a game (a copy: read, don't write)."""
        b = self._boards.get(game_id, BoardsPosted())
        return BoardsPosted(b.count, b.alt, b.ply)

    async def _tidy(self, table: TableView, board: discord.Message | None) -> None:
        """Remember the newest board; if the server tidies (/sequence settings), delete the
        one before it, so the channel shows one board per game."""
        if board is None:
            return
        previous = self._last_board.get(table.game_id)
        self._last_board[table.game_id] = board.id
        if previous is None or not self._prefs.tidies(table.guild_id):
            return
        try:
            await self.channel(table).get_partial_message(previous).delete()
        except SENDING_FAILED:
            log.info("could not tidy an old board of game %d", table.game_id, exc_info=True)

    # ------------------------------------------------------------------ lobbies
    def hold_lobby(self, game_id: int) -> None:
        """A rematch is seating everyone: the lobby is shown once, when it is full."""
        self._held.add(game_id)

    def release_lobby(self, game_id: int) -> None:
        self._held.discard(game_id)

    def lobby_held(self, game_id: int) -> bool:
        return game_id in self._held

    def lobby_is(self, game_id: int, message: discord.Message | discord.InteractionMessage
                 ) -> None:
        """The message that shows this lobby (the reply to /sequence new, or one found
        again after a restart)."""
        self._lobbies[game_id] = (message.channel.id, message.id)

    def lobby_message_of(self, game_id: int) -> tuple[int, int] | None:
        return self._lobbies.get(game_id)

    async def refresh_lobby(self, table: TableView, *, footer: str | None = None) -> None:
        """Show the lobby as it is now: edit its message, or post one if there is none."""
        lang = self._prefs.guild_lang(table.guild_id)
        embed, view = messages.lobby_message(table, lang, footer=footer)
        where = self._lobbies.get(table.game_id)
        if where is None:
            if table.status == "lobby":
                message = await self.post(table, embed=embed, view=view)
                if message is not None:
                    self.lobby_is(table.game_id, message)
            return
        # (the lobby message stays where it was posted, even when the game moved on)
        lobby = self._bot.get_partial_messageable(
            where[0], guild_id=table.guild_id).get_partial_message(where[1])
        try:
            await lobby.edit(embed=embed, view=view)
        except SENDING_FAILED:
            log.exception("could not update the lobby message of game %d", table.game_id)

    def lobby_closed(self, game_id: int) -> tuple[int, int] | None:
        """The lobby became a game (or was cancelled): its message is no longer updated."""
        return self._lobbies.pop(game_id, None)

    # ------------------------------------------------------------------ threads
    async def open_thread(self, table: TableView, lobby: tuple[int, int] | None, lang: str
                          ) -> TableView:
        """Move a starting game into a thread of its own (opened on its lobby message when
        that is known), so the channel stays readable with several games. A game that
        starts inside a thread (a rematch) stays there. If Discord refuses (no Create
        Public Threads permission), the game is played in the channel, and the channel is
        told why."""
        if self._is_thread(table.channel_id):
            return table
        name = t("thread.name", lang, game=messages.game_name(table, lang),
                 number=table.game_id)
        try:
            if lobby is not None and lobby[0] == table.channel_id:
                message = self.channel(table).get_partial_message(lobby[1])
                thread = await message.create_thread(name=name[:100], auto_archive_duration=1440)
            else:
                parent = self._bot.get_channel(table.channel_id)
                if not isinstance(parent, discord.TextChannel):
                    raise TypeError(f"channel {table.channel_id} cannot hold threads")
                thread = await parent.create_thread(
                    name=name[:100], auto_archive_duration=1440,
                    type=discord.ChannelType.public_thread)
        except (*SENDING_FAILED, TypeError, ValueError):
            log.warning("could not open a thread for game %d; it is played in channel %d",
                        table.game_id, table.channel_id, exc_info=True)
            await self.post(table, content=t("thread.failed", lang))
            return table
        try:
            moved = await self._manager.move_game(table.game_id, thread.id)
        except Refusal:
            log.warning("game %d could not move to its thread %d", table.game_id, thread.id)
            return table
        self._thread_parent[thread.id] = table.channel_id
        self._moved_to[table.game_id] = thread.id
        if lobby is None:  # no lobby message for the thread to hang from: point to it
            await self.post(table, content=t("thread.moved", lang, thread=f"<#{thread.id}>"))
        return moved

    def _is_thread(self, channel_id: int) -> bool:
        if channel_id in self._thread_parent:
            return True
        return isinstance(self._bot.get_channel(channel_id), discord.Thread)

    async def parent_of(self, channel_id: int) -> int | None:
        """The channel a game's thread hangs from, if this bot opened that thread for it
        (None otherwise: a channel, or a thread that people opened themselves)."""
        if channel_id in self._thread_parent:
            return self._thread_parent[channel_id]
        channel = self._bot.get_channel(channel_id)
        if channel is None:
            try:
                channel = await self._bot.fetch_channel(channel_id)
            except SENDING_FAILED:
                return None
        # the owner survives a restart, unlike this process's memory of what it opened
        bot_user = self._bot.user
        if isinstance(channel, discord.Thread) and bot_user is not None \
                and channel.owner_id == bot_user.id:
            return channel.parent_id
        return None
