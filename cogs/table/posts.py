"""What the bot has posted in each game's channel, and the one way to post there.

The owner of the channel-side bookkeeping: each lobby's message, each game's newest board
(and how many boards got through, for recovery), the thread a game moved to, lobbies
being seated by a rematch. Several processes may share the games (docs/SCALING.md) and any
of them may post a game's next board or change its lobby, so the lobby message, the newest
board and the thread live in the store (``store.posted``), not here: a process edits a
lobby message another one posted, and tidies away the board before the newest, whoever
posted it. What stays here is this process's own: boards it got through (recovery
compares them), the thread a game is moving to while its older events are still told,
lobbies a rematch of its own is seating. Every per-game entry, here and in the store, is
dropped by ``forget`` when the game ends; an entry of a game that ended in another process
goes when this process's manager drops the game.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord

from engine.observation import Observation
from manager import GameManager, Status, TableView
from store import StoreUnavailable

from ..i18n import t
from . import messages
from .clicked import edit_through
from .pace import ChannelPace
from .pictures import BOARD, board_file
from .posted import Posted
from .prefs import Preferences
from .urgency import BOARD_WATCHED, Urgency, unhurried

log = logging.getLogger(__name__)

SENDING_FAILED = (discord.HTTPException, aiohttp.ClientError, OSError)
#: Seconds before a post is sent once more when discord.py's own tries (five, each after
#: Discord's ``retry_after``) all ended in a 429. Discord carries out nothing it answers 429,
#: so the same post goes again, in its place among the game's announcements: a board keeps
#: its move's words and its turn. Bounded: after these, the post is refused (a board is
#: then shown once more later: ``Announcer``).
RATE_LIMITED_AGAIN = (0.5, 1.0, 2.0)


def _rate_limited(exc: BaseException) -> bool:
    return isinstance(exc, discord.HTTPException) and exc.status == 429


def _again(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A send's arguments for sending once more: its picture as a new ``discord.File``
    (the first one's stream was read, and discord.py rewinds only within its own tries)."""
    picture = kwargs.get("file")
    if not isinstance(picture, discord.File):
        return kwargs
    picture.reset()
    data = picture.fp.read()
    return {**kwargs, "file": discord.File(io.BytesIO(data), filename=picture.filename,
                                           description=picture.description,
                                           spoiler=picture.spoiler)}


@dataclass
class BoardsPosted:
    """How many boards this process got through for a game, and what the newest shows."""

    count: int = 0
    alt: str = ""
    ply: int = -1  # the newest move whose board got through


class Posts:
    """Posts in a game's channel (or the thread it moved to) and remembers what it posted."""

    def __init__(self, bot: discord.Client, manager: GameManager, prefs: Preferences,
                 posted: Posted, pace: ChannelPace | None = None,
                 urgent: Urgency = unhurried, *, board_button: bool = False) -> None:
        """``urgent``: around a board's post, so the bot's REST pace lets it go before
        what nobody is looking for yet (``runtime.budget.GlobalBudget.urgent``);
        ``board_button``: the bot serves the Activity, so the lobby and every board of a
        game in play carry "Play on the board" (``offers_the_board``)."""
        self._bot = bot
        self.board_button = board_button
        self._manager = manager
        self._prefs = prefs
        self._posted = posted
        self._pace = pace or ChannelPace()
        self._urgent = urgent
        self._boards: dict[int, BoardsPosted] = {}
        self._dropping: set[asyncio.Task[None]] = set()  # store rows of ended games going
        # game -> its newest board being recorded (and the one before tidied): off the
        # move's path, one after another per game
        self._tidying: dict[int, asyncio.Task[None]] = {}
        # game -> the newest change of its lobby while its message is being shown and kept
        # (``showing_lobby``), None while there is none
        self._showing: dict[int, tuple[TableView, str | None] | None] = {}

    def offers_the_board(self, table: TableView) -> bool:
        """Whether ``table``'s lobby and boards carry "Play on the board": the bot serves
        the Activity, and the table is in a server (Discord runs an Activity in a DM only
        for an app installed to the person: issue 48, item 5)."""
        return self.board_button and table.guild_id is not None

    def forget(self, game_id: int) -> None:
        """The game is over (or its lobby cancelled): drop everything kept for it, here
        and (in a task of its own, so the click that ended the game is not kept waiting)
        in the store."""
        self._boards.pop(game_id, None)
        task = asyncio.create_task(self._drop_posted(game_id, self._tidying.pop(game_id, None)),
                                   name=f"forget-{game_id}")
        self._dropping.add(task)
        task.add_done_callback(self._dropping.discard)

    async def _drop_posted(self, game_id: int, tidying: asyncio.Task[None] | None) -> None:
        if tidying is not None:  # the final board is recorded (and the one before tidied)
            await asyncio.wait({tidying})
        try:
            await self._posted.game_over(game_id)
        except Exception as exc:  # the next game over sweeps it (``Posted.game_over``)
            log.warning("could not drop what was posted for game %d: %r", game_id, exc)

    def close(self) -> None:
        """At shutdown: a row not yet dropped is swept by a later game over."""
        for task in [*self._dropping, *self._tidying.values()]:
            task.cancel()

    def tracked_games(self) -> int:
        """How many games this object holds anything for (a leak shows here)."""
        return len(self._boards)

    def _drop_ended_elsewhere(self) -> None:
        """Entries of games this process's manager no longer has (they ended in another
        process, which forgot them in the store): looked for when a new game comes in."""
        for game_id in [g for g in self._boards if not self._manager.is_active(g)]:
            del self._boards[game_id]

    # ------------------------------------------------------------------ sending
    @staticmethod
    def where(table: TableView) -> int:
        """The channel a game is played in now (a game that moved to its thread moved with
        its start: every event of the game names the thread)."""
        return table.channel_id

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
        where = self._bot.get_partial_messageable(target, guild_id=table.guild_id)
        for pause in (*RATE_LIMITED_AGAIN, None):
            await self._pace.turn(target)  # never more than Discord's rate in one channel
            try:
                message = await where.send(**kwargs)
                break
            except SENDING_FAILED as exc:
                if pause is None or not _rate_limited(exc):
                    log.exception("could not post in channel %d for game %d", target,
                                  table.game_id)
                    return None
            log.warning("Discord still rate limits posts in channel %d after discord.py's "
                        "tries: posting again in %.1f s", target, pause)
            await asyncio.sleep(pause)
            kwargs = _again(kwargs)
        picture = kwargs.get("file")
        if isinstance(picture, discord.File) and picture.filename == BOARD:
            if table.game_id not in self._boards:
                self._drop_ended_elsewhere()
            boards = self._boards.setdefault(table.game_id, BoardsPosted())
            boards.count += 1
            boards.alt = picture.description or ""
        return message

    async def post_board(self, table: TableView, obs: Observation, content: str, *,
                         view: discord.ui.View | None, ply: int, lang: str,
                         allowed_mentions: discord.AllowedMentions | None = None,
                         tidy: bool = True, only_if: Callable[[], bool] | None = None,
                         nonce: str | None = None) -> discord.Message | None:
        """The one way a board goes out: picture, words, buttons; remembered (in the store)
        as the newest board (``ply``: the move it shows) and, where the server tidies, the
        one before it deleted, whichever process posted it. ``only_if``: asked once the
        picture is drawn (drawing takes a while); False posts nothing (e.g. a newer move's
        own board is on its way).

        Sent with a nonce Discord enforces (``nonce``, else ``board:<game>:<the table's
        ply>``, the moment shown, which a move's ``ply`` is not: that is its index): a second
        board of the same moment within minutes (a retry whose first try did get through,
        or another process showing the table again) returns the first, never a copy."""
        picture = await board_file(messages.as_shown(table, obs),
                                   messages.seat_names(table, lang), lang, table.game_id)
        if only_if is not None and not only_if():
            return None
        if self.offers_the_board(table) and table.status == "playing":
            view = messages.with_board_button(view, table, lang)
        kwargs: dict[str, Any] = {"content": content, "file": picture, "view": view,
                                  "nonce": nonce or f"board:{table.game_id}:{table.ply}"}
        if allowed_mentions is not None:
            kwargs["allowed_mentions"] = allowed_mentions
        with self._urgent(BOARD_WATCHED):  # (the tidying after it is not: it starts outside)
            message = await self.post(table, **kwargs)
        if message is not None:
            boards = self._boards.setdefault(table.game_id, BoardsPosted())
            boards.ply = max(ply, boards.ply)
        if tidy and message is not None:
            self._tidy_later(table, message, ply)
        return message

    def boards_posted(self, game_id: int) -> BoardsPosted:
        """What this process got through for a game (a copy: read, don't write)."""
        b = self._boards.get(game_id, BoardsPosted())
        return BoardsPosted(b.count, b.alt, b.ply)

    def _tidy_later(self, table: TableView, board: discord.Message, ply: int) -> None:
        """Record and tidy in a task (a move's click waits for its announcements: it need
        not wait for this), after the game's previous one, so one process keeps order."""
        game_id = table.game_id
        before = self._tidying.get(game_id)

        async def work() -> None:
            if before is not None:
                await asyncio.wait({before})
            await self._tidy(table, board, ply)

        task = asyncio.create_task(work(), name=f"tidy-{game_id}")
        self._tidying[game_id] = task

        def done(finished: asyncio.Task[None]) -> None:
            if self._tidying.get(game_id) is finished:
                del self._tidying[game_id]

        task.add_done_callback(done)

    async def _tidy(self, table: TableView, board: discord.Message, ply: int) -> None:
        """Record the newest board in the store; if the server tidies (/sequence settings),
        delete the board that is stale now, so the channel shows one board per game. The
        store settles it in one transaction: the board before this one, or this one
        itself if another process has meanwhile posted a newer one."""
        try:
            stale = await self._posted.board_posted(table.game_id, board.id, ply)
        except StoreUnavailable:
            return  # (said once by the store) a board not tidied now is tidied later
        except Exception:
            log.exception("could not record the newest board of game %d", table.game_id)
            return
        if stale is None or not self._prefs.tidies_table(table):
            return
        try:
            await self.channel(table).get_partial_message(stale).delete()
        except SENDING_FAILED:
            log.info("could not tidy an old board of game %d", table.game_id, exc_info=True)

    # ------------------------------------------------------------------ lobbies
    async def lobby_is(self, game_id: int,
                       message: discord.Message | discord.InteractionMessage) -> None:
        """The message that shows this lobby (the reply to /sequence new, or one found
        again after a restart), kept in the store so any process can edit it."""
        await self._posted.lobby_posted(game_id, message.channel.id, message.id)

    async def lobby_message_of(self, game_id: int) -> tuple[int, int] | None:
        """(channel, message) of the lobby's message, whichever process posted it."""
        return await self._posted.lobby_message(game_id)

    @contextlib.asynccontextmanager
    async def showing_lobby(self, game_id: int) -> AsyncIterator[None]:
        """Held while a new lobby's message is shown and kept (the reply to /sequence new
        or a rematch). Its Join button is on screen a moment before the store knows the
        message, and a click in that moment found no lobby message and posted a second
        lobby (the first never showed who joined). A change meanwhile is kept here, and
        shown on the message once it is kept."""
        self._showing[game_id] = None
        try:
            yield
        finally:
            change = self._showing.pop(game_id, None)
            if change is not None:
                await self.refresh_lobby(change[0], footer=change[1])

    async def refresh_lobby(self, table: TableView, *, footer: str | None = None) -> None:
        """Show the lobby as it is now: edit its message (whichever process posted it), or
        post one if there is none (or it was deleted) and the lobby is still open."""
        if table.game_id in self._showing:  # (being shown: then, see showing_lobby)
            self._showing[table.game_id] = (table, footer)
            return
        lang = self._prefs.table_lang(table)
        embed, view = messages.lobby_message(table, lang, footer=footer,
                                             board_button=self.offers_the_board(table))
        where = await self._posted.lobby_message(table.game_id)
        if where is not None:
            if await edit_through(where[1], embed=embed, view=view):
                return  # (the click on it is being answered: see clicked.py)
            # (the lobby message stays where it was posted, even when the game moved on)
            lobby = self._bot.get_partial_messageable(
                where[0], guild_id=table.guild_id).get_partial_message(where[1])
            try:
                await lobby.edit(embed=embed, view=view)
                return
            except discord.NotFound:
                log.info("the lobby message of game %d was deleted", table.game_id)
            except SENDING_FAILED:
                log.exception("could not update the lobby message of game %d", table.game_id)
                return
        if table.status is Status.LOBBY:
            message = await self.post(table, embed=embed, view=view)
            if message is not None:
                await self.lobby_is(table.game_id, message)

    async def lobby_closed(self, game_id: int) -> tuple[int, int] | None:
        """The lobby became a game (or was cancelled): its message is no longer updated.
        Returns where it was (a game's thread hangs from it)."""
        return await self._posted.lobby_closed(game_id)

    # ------------------------------------------------------------------ threads
    async def open_thread(self, table: TableView, lang: str) -> tuple[int, bool] | None:
        """A thread of its own for a game about to start (opened on its lobby message when
        that is known), so the channel stays readable with several games; None when there
        is no need (a game started inside a thread, a rematch, stays there) or Discord
        refuses (no Create Public Threads permission: then the channel is told why, and
        the game is played there). Returns the thread and whether it hangs from the lobby
        message. The game moves into it with its start (``GameManager.start_game(
        channel_id=)``), then ``thread_opened`` records it."""
        if await self._is_thread(table.channel_id):
            return None
        name = t("thread.name", lang, game=messages.game_name(table, lang),
                 number=table.game_id)
        lobby = await self._posted.lobby_message(table.game_id)
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
            return None
        return thread.id, lobby is not None and lobby[0] == table.channel_id

    async def thread_opened(self, table: TableView, parent: int, lang: str, *,
                            on_lobby: bool) -> None:
        """The game started in the thread opened for it (``table.channel_id``): kept in the
        store (any process finds the channel it hangs from), and pointed to from the
        channel when it does not hang from the lobby message there."""
        try:
            await self._posted.moved_to_thread(table.game_id, table.channel_id, parent)
        except StoreUnavailable:
            pass  # as below; the outage is said once, by the store
        except Exception:  # the thread is found by its owner then (``parent_of``)
            log.exception("could not record the thread of game %d", table.game_id)
        if not on_lobby:
            await self.post(table, channel_id=parent,
                            content=t("thread.moved", lang, thread=f"<#{table.channel_id}>"))

    async def drop_thread(self, thread_id: int) -> None:
        """A thread opened for a start that was then refused: it goes again."""
        try:
            await self._bot.http.delete_channel(thread_id, reason="its game did not start")
        except SENDING_FAILED:
            log.info("could not delete the unused thread %d", thread_id, exc_info=True)

    async def _is_thread(self, channel_id: int) -> bool:
        if isinstance(self._bot.get_channel(channel_id), discord.Thread):
            return True
        return await self._posted.thread_parent(channel_id) is not None

    async def parent_of(self, channel_id: int) -> int | None:
        """The channel a game's thread hangs from, if this bot opened that thread for it
        (None otherwise: a channel, or a thread that people opened themselves)."""
        channel = self._bot.get_channel(channel_id)
        if channel is not None and not isinstance(channel, discord.Thread):
            return None  # a channel: nothing to ask (the game's end waits for no one)
        # kept in the store while the game lasts, whichever process opened the thread
        parent = await self._posted.thread_parent(channel_id)
        if parent is not None:
            return parent
        if channel is None:
            try:
                channel = await self._bot.fetch_channel(channel_id)
            except SENDING_FAILED:
                return None
        # the owner survives anything, even a game whose store row went
        bot_user = self._bot.user
        if isinstance(channel, discord.Thread) and bot_user is not None \
                and channel.owner_id == bot_user.id:
            return channel.parent_id
        return None
