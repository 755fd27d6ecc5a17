"""Messages out: one method per manager event.

The manager commits first and announces after, one game's events in order. Each method
here turns one event into what the channel and the players see, through the owners of
the posting and DM bookkeeping (``Posts``, ``DirectMessages``); it keeps no state of its
own but the delayed board retries.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import discord

from engine import Refusal
from manager import (
    Event,
    GameManager,
    GameOver,
    GameStarted,
    HandChanged,
    LobbyCancelled,
    LobbyChanged,
    Moved,
    SeatChanged,
    Status,
    TurnReminder,
    TurnStarted,
    TurnTimedOut,
)
from store import StoreUnavailable

from ..i18n import t
from . import messages
from .buttons import SameSeatsRematch
from .dms import DirectMessages, Tap
from .pictures import replay_file
from .posts import SENDING_FAILED, Posts
from .prefs import Preferences
from .urgency import HAND_WANTED, Urgency, unhurried
from .watch import Unwatched, Watch

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
SHOW_AGAIN_AFTER = 3.0  # seconds before a board Discord refused is shown once more


class Announcer:
    """Turns the manager's events into channel messages, boards and hands."""

    def __init__(self, manager: GameManager, prefs: Preferences, posts: Posts,
                 dms: DirectMessages, watch: Watch | None = None,
                 urgent: Urgency = unhurried) -> None:
        """``watch``: told when each change's board is out (the bot's metrics);
        ``urgent``: around what a player waits for to play on (a changed hand), so the
        bot's REST pace lets it go first (the boards are ``Posts``' to mark)."""
        self._manager = manager
        self._prefs = prefs
        self._posts = posts
        self._dms = dms
        self._watch = watch or Unwatched()
        self._urgent = urgent
        self._retries: set[asyncio.Task[None]] = set()
        # game -> the lines of moves whose moment was gone before anyone could act on it:
        # the move that ended the game (the final board says it, instead of a board of its
        # own just before: one message less for the same picture) and a move after which
        # the next seat could only pass (the board of that pass says both). A board that
        # named the player whose turn had already passed would ask them to play.
        self._untold: dict[int, list[str]] = {}
        self._handlers: dict[type[Event], Callable[[Any], Awaitable[None]]] = {
            LobbyChanged: self.lobby_changed,
            LobbyCancelled: self.lobby_cancelled,
            GameStarted: self.game_started,
            Moved: self.moved,
            HandChanged: self.hand_changed,
            TurnStarted: self.turn_started,
            SeatChanged: self.seat_changed,
            TurnReminder: self.turn_reminder,
            TurnTimedOut: self.turn_timed_out,
            GameOver: self.game_over,
        }

    async def on_event(self, event: Event) -> None:
        """The manager's listener interface."""
        handler = self._handlers.get(type(event))
        if handler is not None:
            await handler(event)

    def close(self) -> None:
        for task in self._retries:
            task.cancel()

    def _forget(self, game_id: int) -> None:
        self._untold.pop(game_id, None)
        self._posts.forget(game_id)
        self._dms.forget(game_id)

    # ------------------------------------------------------------------ lobbies
    async def lobby_changed(self, event: LobbyChanged) -> None:
        if event.reason == "created":
            return  # the reply to /sequence new (or Rematch, everyone seated) shows it
        await self._posts.refresh_lobby(event.table)

    async def lobby_cancelled(self, event: LobbyCancelled) -> None:
        table = event.table
        lang = self._prefs.table_lang(table)
        footer = t("lobby.cancelled.idle", lang) if event.reason == "idle" else None
        await self._posts.refresh_lobby(table, footer=footer)
        self._forget(table.game_id)

    # ------------------------------------------------------------------ play
    async def game_started(self, event: GameStarted) -> None:
        table = event.table
        await self._posts.refresh_lobby(table)
        await self._posts.lobby_closed(table.game_id)
        lang = self._prefs.table_lang(table)
        obs = event.observation
        if await self._posts.post_board(table, obs, messages.started_text(table, obs, lang),
                                        view=messages.board_view(table, obs, lang),
                                        ply=table.ply, lang=lang) is not None:
            self._watch.board_shown(event)

    async def moved(self, event: Moved) -> None:
        table = event.table
        if event.action == "roll":
            return  # the roller gets the dice privately; the board follows the placement
        lang = self._prefs.table_lang(table)
        obs = event.observation
        over = bool(obs.get("is_over"))
        # a resignation or a turn lost to the timer was told in words just before (the
        # manager's SeatChanged / TurnTimedOut): the board shows only whose turn it is now
        told = messages.told_before(event.action)
        lines = self._untold.pop(table.game_id, [])
        if not told:
            lines.append(messages.move_line(table, event, lang))
        if over or event.passes_next:
            # the final board, or the board of the forced pass, follows at once and
            # shows this moment too
            if lines:
                self._untold[table.game_id] = lines
            await self._cards_again_after_skip(event)
            return
        # whose turn it was right after this move: boards are announced in order, a little
        # after the moves (computers may be ahead), and each tells its own moment
        lines.append(messages.turn_line(table, lang))
        message = await self._posts.post_board(
            table, obs, "\n".join(lines),
            view=messages.board_view(table, obs, lang), ply=event.ply,
            lang=lang)
        if message is not None:
            self._watch.board_shown(event)
        else:
            # Discord refused even after discord.py's own tries: show the position once
            # more a little later, unless a newer board gets through first. Never a loop.
            self._later(self._show_board_again(table.game_id, event.ply))
        await self._cards_again_after_skip(event)

    async def _cards_again_after_skip(self, event: Moved) -> None:
        if event.action == "skip" and event.table.game == "kids":
            # the turn went by while the seat's hand message may show a card's choices:
            # it shows the cards again (their numbers belong to the turn gone by)
            await self._dms.deliver_hand(event.table, event.seat)

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _show_board_again(self, game_id: int, ply: int) -> None:
        await asyncio.sleep(SHOW_AGAIN_AFTER)
        # a newer move's own board may be on its way (a slow machine, Discord retrying):
        # wait for the table to be quiet (bounded), so this never doubles that board
        loop = asyncio.get_running_loop()
        quiet_by = loop.time() + SHOW_AGAIN_AFTER
        with contextlib.suppress(Refusal):
            while self._manager.announcing(game_id) and loop.time() < quiet_by:
                await asyncio.sleep(0.05)
        if self._posts.boards_posted(game_id).ply > ply:
            return  # a newer board got through meanwhile
        try:
            table = self._manager.get(game_id)
            if table.status is not Status.PLAYING:
                return
            lang = self._prefs.table_lang(table)
            obs = self._manager.spectator_observation(game_id)
            await self._posts.post_board(
                table, obs, "\n".join([t("board.again", lang), messages.turn_line(table, lang)]),
                view=messages.board_view(table, obs, lang), ply=table.ply, lang=lang)
        except Refusal:
            pass  # the game ended meanwhile
        except StoreUnavailable:
            pass  # the outage is said once, by the store; the next move shows the board
        except Exception:
            log.exception("could not show the board of game %d again", game_id)

    async def hand_changed(self, event: HandChanged) -> None:
        if event.table.game != "kids":
            return
        if event.table.status is not Status.PLAYING or not self._manager.is_active(
                event.game_id):
            # the move ended the game, or it ended while this waited its turn: no hand to
            # show now, but a number tapped for the move gets the end as its answer
            if isinstance(event.reply_to, Tap):
                await self._dms.show_end(event.reply_to, event.game_id)
            return
        # (the game's next events wait for this one: a move's board behind a dealt hand
        # queued with the crowd of a room of tables opening at once waited seconds)
        with self._urgent(HAND_WANTED):
            await self._dms.deliver_hand(event.table, event.seat, event.observation,
                                         reply_to=event.reply_to,
                                         kept_after_doubt=event.kept_after_doubt)

    async def turn_started(self, event: TurnStarted) -> None:
        """A Kids seat's turn: its hand message shows which of its cards are dead now. The
        others' moves since its own can have made one dead (both its spaces taken), and the
        card looked playable there (blue, uncrossed) while the page showed it dead. Only a
        hand message showing the cards is edited so (the dead marks are in what it shows:
        nothing is sent when they are the same); one showing a card's choices just tapped is
        left as it is."""
        if event.table.game != "kids" or event.table.status is not Status.PLAYING:
            return
        with self._urgent(HAND_WANTED):
            await self._dms.deliver_hand(event.table, event.seat, event.observation,
                                         if_showing_cards=True)

    # ------------------------------------------------------------------ seats and timers
    async def seat_changed(self, event: SeatChanged) -> None:
        table = event.table
        lang = self._prefs.table_lang(table)
        name = table.seats[event.seat].name if event.seat < len(table.seats) else "?"
        await self._posts.post(table, content=t(f"seat.{event.change}", lang, name=name),
                               allowed_mentions=NO_MENTIONS)

    async def turn_reminder(self, event: TurnReminder) -> None:
        lang = self._prefs.table_lang(event.table)
        seat = event.table.seats[event.seat]
        words = (t("timer.reminder.child", lang, mention=f"<@{event.user_id}>", name=seat.name)
                 if seat.is_child else
                 t("timer.reminder", lang, mention=f"<@{event.user_id}>"))
        await self._posts.post(event.table, content=words)

    async def turn_timed_out(self, event: TurnTimedOut) -> None:
        if event.outcome == "seat_freed":
            return  # the SeatChanged ("freed") message already says so
        table = event.table
        lang = self._prefs.table_lang(table)
        name = table.seats[event.seat].name if event.seat < len(table.seats) else "?"
        await self._posts.post(table, content=t(f"timer.timed_out.{event.outcome}", lang,
                                                name=name), allowed_mentions=NO_MENTIONS)

    # ------------------------------------------------------------------ the end
    async def game_over(self, event: GameOver) -> None:
        table = event.table
        lang = self._prefs.table_lang(table)
        try:
            if event.reason == "ended":
                # a moderator may have no seat: a mention shows their name without a ping
                await self._posts.post(table, content=t("over.ended", lang,
                                                        name=f"<@{event.ended_by}>"),
                                       allowed_mentions=NO_MENTIONS)
                return
            await self._final_board(event, lang)
        finally:
            self._forget(table.game_id)

    async def _final_board(self, event: GameOver, lang: str) -> None:
        table = event.table
        lines = [*messages.result_lines(table, event, lang), t("over.rematch", lang)]
        view = discord.ui.View(timeout=None)
        view.add_item(SameSeatsRematch(table.game_id, t("button.rematch", lang)))
        words = [*self._untold.get(table.game_id, []), *lines]
        final = await self._posts.post_board(table, event.observation, "\n".join(words),
                                             view=messages.stopped(view), ply=table.ply,
                                             lang=lang, allowed_mentions=NO_MENTIONS,
                                             nonce=f"end:{table.game_id}")
        if final is not None:
            self._watch.board_shown(event)
            try:  # a restart or another process need not post it again
                await self._manager.final_boards.shown(table.game_id)
            except Exception:
                log.warning("could not note that game %d's end was shown", table.game_id,
                            exc_info=True)
        where = self._posts.where(table)
        # asked of the channel itself, not of the server's setting: after a restart the
        # game may still be in the thread the bot opened, though threads are off since
        parent = await self._posts.parent_of(where)
        if parent is not None:  # the channel the thread hangs from hears how it ended too
            await self._posts.post(table, channel_id=parent, content=t(
                "over.in_thread", lang, result=lines[0], thread=f"<#{where}>"),
                allowed_mentions=NO_MENTIONS)
        if final is None:
            return
        # the replay of a long Dice game takes seconds to draw: the result goes out first,
        # the animation joins the same message when it is ready
        replay = await replay_file(await self._manager.load_record(table.game_id),
                                   messages.seat_names(table, lang), lang)
        if replay is not None:
            try:
                await final.edit(attachments=[*final.attachments, replay])
            except SENDING_FAILED:
                log.exception("could not attach the replay of game %d", table.game_id)
