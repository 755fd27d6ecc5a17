"""After a restart: show each table again, posting only what its channel is missing.

The manager commits before it announces, so the old process may have died between a move
and its board, hand or lobby message. Discord keeps what did go out: each table's recent
messages are compared with what it should show now, and only what is missing is posted
(nothing is doubled).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import discord

from engine import Refusal
from engine.observation import Observation
from manager import GameManager, GameOver, Status, TableView
from store import StoreUnavailable

from ..i18n import t
from . import messages
from .dms import DirectMessages
from .pictures import BOARD, board_alt
from .posts import SENDING_FAILED, Posts
from .prefs import Preferences
from .shards import owns

log = logging.getLogger(__name__)

RECOVER_AT_ONCE = 4  # tables a restarted bot looks at side by side
RECENT = 25  # messages read back per channel


class Recovery:
    """Shows the tables this process restored from the database, once, after it starts."""

    def __init__(self, bot: discord.Client, manager: GameManager, prefs: Preferences,
                 posts: Posts, dms: DirectMessages,
                 final_board: Callable[[GameOver], Awaitable[None]]) -> None:
        """``final_board``: how a game's end is announced (``Announcer.game_over``), for a
        final board that never got out."""
        self._bot = bot
        self._final_board = final_board
        self._manager = manager
        self._prefs = prefs
        self._posts = posts
        self._dms = dms
        # tables created before this moment were restored from the database by this
        # process and may need showing again (later ones were announced as they happened)
        self.started_at = time.time()

    async def recover(self) -> None:
        """Show every restored table again. Raises ``StoreUnavailable`` if the database
        was away for any of them: then the whole is tried again later (what did get out
        is not posted twice)."""
        # Tables are looked at side by side (a few at a time, to stay polite to Discord):
        # one waiting for a busy game to go quiet must not hold back the others.
        gate = asyncio.Semaphore(RECOVER_AT_ONCE)
        away: list[str] = []

        async def one(table: TableView) -> None:
            async with gate:
                if not await self.show(table):
                    away.append(f"game {table.game_id} not shown")

        # games whose end was committed but whose final board never got out (the old
        # process died in between)
        ended = []
        for game_id in await self._manager.final_boards.owed():
            final = await self._manager.final_boards.ending(game_id)
            if final is not None:
                ended.append(final.table)
        # with several processes, each shows again only its own shards' servers' tables
        await asyncio.gather(*(one(table) for table in [*self._manager.tables(), *ended]
                               if table.created_at < self.started_at
                               and owns(self._bot, table.guild_id)))
        if away:
            raise StoreUnavailable(f"{len(away)} tables not shown")

    async def show(self, table: TableView, ending: GameOver | None = None) -> bool:
        """Show one table again, posting only what its channel is missing. With several
        processes (``manager.showing``) never two at once for one table: the second reads
        what the first posted. ``ending``: how a finished game ended, when its final board
        is known to be owed (the manager said so with ``ShowAgain``). False if the database
        was away (nothing is wrong with the table: show it again later)."""
        try:
            async with self._manager.showing(table.game_id):
                if table.status is Status.LOBBY:
                    await self._lobby(table)
                elif table.status is Status.PLAYING:
                    await self._game(table)
                elif ending is not None:
                    await self._final_board(ending)
                elif table.status is Status.FINISHED:
                    await self._ended(table)
        except Refusal:
            pass  # it ended meanwhile
        except StoreUnavailable:
            return False  # (the outage is said once, by the store)
        except Exception:
            log.exception("could not show game %d again after the restart", table.game_id)
        return True

    async def _recent(self, messageable: discord.abc.Messageable) -> list[discord.Message]:
        try:
            return [m async for m in messageable.history(limit=RECENT)]
        except SENDING_FAILED:
            log.warning("could not read recent messages", exc_info=True)
            return []

    def _mine(self, message: discord.Message) -> bool:
        return self._bot.user is not None and message.author.id == self._bot.user.id

    def _newest_picture(self, recent: list[discord.Message], filename: str) -> str | None:
        """The alt text of the newest picture called ``filename`` that this bot posted."""
        return next((a.description for m in recent if self._mine(m)
                     for a in m.attachments if a.filename == filename), None)

    async def _lobby(self, table: TableView) -> None:
        # the store names the lobby's message (whichever process posted it): edited in
        # place without reading the channel; one deleted meanwhile is posted anew
        if await self._posts.lobby_message_of(table.game_id) is None:
            prefix = f"seq:lobby:{table.game_id}:"
            for message in await self._recent(self._posts.channel(table)):
                ids = [getattr(c, "custom_id", None) or "" for row in message.components
                       for c in getattr(row, "children", [])]
                if self._mine(message) and any(i.startswith(prefix) for i in ids):
                    await self._posts.lobby_is(table.game_id, message)
                    break
        await self._posts.refresh_lobby(table)

    async def _game(self, table: TableView) -> None:
        lang = self._prefs.table_lang(table)
        before = self._posts.boards_posted(table.game_id).count
        recent = await self._recent(self._posts.channel(table))
        # A move may be coming in while this restarted process gets ready: wait until the
        # table is quiet and read the position in that same step (no await between), so
        # recovery never posts what a move's own board is about to show, nor a stale turn.
        await self._announcements_done(table.game_id)
        table = self._manager.get(table.game_id)
        obs = self._manager.spectator_observation(table.game_id)
        posted = self._posts.boards_posted(table.game_id)
        shown = posted.alt if posted.count != before else self._newest_picture(recent, BOARD)
        await self._board(table, obs, shown, lang)
        if table.game != "kids":
            return
        for seat in table.seats:
            if seat.user_id is None or seat.is_computer or seat.left or seat.resigned:
                continue
            if await self._dms.refused_lately(seat.user_id):
                continue
            await self._hand(table, seat.index)

    async def _ended(self, table: TableView) -> None:
        """A game that ended with a result: its final board (the one with the rematch
        button), unless it got out (the store knows: no channel is read, so a final board
        long scrolled away is never posted twice)."""
        final = await self._manager.final_boards.ending(table.game_id)
        if final is not None:
            log.info("game %d: its final board never got out; posting it", table.game_id)
            await self._final_board(final)

    async def _announcements_done(self, game_id: int, timeout: float = 5.0) -> None:
        """Return (without suspending after the last check) once the table is quiet."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._manager.announcing(game_id):
            if loop.time() > deadline:
                log.warning("game %d: a move's board is still on its way; recovering anyway",
                            game_id)
                return
            await asyncio.sleep(0.02)

    async def _board(self, table: TableView, obs: Observation, shown: str | None, lang: str
                     ) -> None:
        """Post where the game stands unless the newest board (``shown``: its alt text)
        shows it already."""
        names = messages.seat_names(table, lang)
        alt = await asyncio.to_thread(board_alt, messages.as_shown(table, obs), names, lang)
        if shown == alt:
            return  # the newest board is of this moment

        def still_current() -> bool:
            try:
                # a move that came in meanwhile shows a newer moment on its own board
                return self._manager.get(table.game_id).ply == table.ply
            except Refusal:
                return False  # the game ended meanwhile

        await self._posts.post_board(
            table, obs, "\n".join([t("board.recovered", lang), messages.turn_line(table, lang)]),
            view=messages.board_view(table, obs, lang), ply=table.ply, lang=lang,
            only_if=still_current,
            # its own nonce: it is posted because the board of this moment is not in the
            # channel (never got there, or was deleted), so it must not be answered with it
            nonce=f"shown:{table.game_id}:{table.ply}")

    async def _hand(self, table: TableView, seat: int) -> None:
        """One seat's hand message made true: the store knows which message it is and what
        it shows, so it is edited only if the hand changed meanwhile (no channel is read).
        A game from before hand messages were kept: the seat's newest hand in the DMs is
        found once and taken as its message (a grown-up's DMs hold one per seat)."""
        user_id = table.seats[seat].user_id
        assert user_id is not None
        if await self._dms.memory.kept_hand(table.game_id, seat) is None:
            await self._adopt(table, seat, user_id)
        await self._dms.deliver_hand(table, seat)

    async def _adopt(self, table: TableView, seat: int, user_id: int) -> None:
        channel = await self._dms.dm_channel(user_id)
        if channel is None:
            return
        of_seat = f"seq:card:{table.game_id}:{seat}:"
        newest = next((m for m in await self._recent(channel) if self._mine(m)
                       and not m.flags.ephemeral
                       and any((getattr(c, "custom_id", None) or "").startswith(of_seat)
                               for row in m.components for c in getattr(row, "children", []))),
                      None)
        if newest is not None:
            # what it shows is not known: the hand is drawn on it once (an edit, no new DM)
            await self._dms.hand_message_is(table.game_id, seat, user_id, newest, "")
