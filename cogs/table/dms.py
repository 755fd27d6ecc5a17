"""Direct messages: sending them, the hand message kept per seat, one retry.

What the bot knows of each person's DMs (their channel, whether their door is closed,
which message is each seat's hand and what it shows) is ``DmMemory``'s (``dm_memory.py``:
the store's rows, with bounded caches in front); this class sends and edits, and tells it
what happened. A refused DM (403, the person closed their DMs) is not tried again for
``DM_CLOSED_FOR`` seconds, so a person who opens their DMs gets hands again later, while a
closed door costs at most one request per person per ten minutes (Discord bans bots that
keep hitting 403s). A passing failure is tried once more a little later, never in a loop.

Each seat's hand is one message in its DMs, kept true (issue 25): families reload the app
between turns, and Discord forgets ephemeral messages then, so the hand the child plays
from must be a message that stays, and stays right. This class is the one that changes it
for a change of the hand (``deliver_hand``): a move made by tapping a number on that very
message comes with the tap (``Event.reply_to``, a ``Tap``), and the message becomes the
new hand as the answer to it (an interaction response, outside the global rate limit);
any other change of the hand edits it (a DM edit). A tap that makes no move (a card, the
way back) is answered by ``hand_clicks.py``, which changes nothing else.

Kept here, per game in play and dropped when it ends (``forget``), and bounded besides:
the seats whose channel heard that their DMs are closed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass, replace
from typing import Any

import discord

from engine import Refusal
from engine.observation import Observation
from manager import GameManager, Status, TableView
from store import StoreUnavailable

from ..i18n import t
from . import messages
from .answer_time import in_time
from .bounded import Lru
from .choices import describe
from .dm_memory import CARDS, DmMemory
from .hand_locks import HandLocks
from .hands import answer_with, hand_payload, hand_shown, over_payload, where
from .posted import DmHand
from .posts import SENDING_FAILED, Posts
from .prefs import Preferences
from .urgency import HAND_WANTED, Urgency, unhurried

log = logging.getLogger(__name__)

RETRY_AFTER = 5.0  # seconds before the one retry of a hand that did not get through
# seconds before a hand whose edit another process's later one overtook is shown again
# (this process's table of the game follows that change within milliseconds: ``sharing``)
OVERTAKEN_AFTER = 0.5
SEATS_HELD = 4096  # (game, seat) notes kept at most, beside the pruning when a game ends


@dataclass(frozen=True)
class Tap:
    """A number tapped on a seat's hand message to make a move: the interaction that hand
    changes through once the move is made (``Event.reply_to`` carries it to
    ``deliver_hand``), and what was played, for the line over the new hand."""

    interaction: discord.Interaction
    seat: int
    action: str
    lang: str


class DirectMessages:
    """Sends hands and notes by DM; tells the memory who took them and who refused."""

    def __init__(self, bot: discord.Client, manager: GameManager, prefs: Preferences,
                 posts: Posts, memory: DmMemory,
                 urgent: Urgency = unhurried) -> None:
        """``urgent``: around opening a person's DM channel, so the bot's REST pace lets it
        go first: a hello and a hand wait for it, and one opening serves every DM after."""
        self._bot = bot
        self._urgent = urgent
        self._manager = manager
        self._prefs = prefs
        self._posts = posts
        self.memory = memory
        # (game, seat) whose channel was told that its DMs are closed: once a game
        self._warned: Lru[tuple[int, int], bool] = Lru(SEATS_HELD)
        #: one change of a seat's hand message at a time (``hand_clicks`` takes them too)
        self.locks = HandLocks()
        self._retries: set[asyncio.Task[None]] = set()

    def forget(self, game_id: int) -> None:
        """The game is over: the channel may be told again in the next one."""
        self._warned.drop(lambda key: key[0] == game_id)
        self.memory.forget(game_id)

    def tracked_games(self) -> int:
        return len({game for game, _ in self._warned} | self.memory.tracked_games())

    def held(self) -> dict[str, int]:
        """How much this side of the DMs holds in memory, by collection (each bounded)."""
        return {"warned": len(self._warned), "retries": len(self._retries),
                "hand_locks": len(self.locks),
                **self.memory.held()}

    def close(self) -> None:
        """At shutdown: a hand not yet sent again is shown by the next start's recovery."""
        for task in self._retries:
            task.cancel()

    def closed(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM lately, as far as this process knows."""
        return self.memory.closed(user_id)

    async def refused_lately(self, user_id: int) -> bool:
        """Whether ``user_id`` refused a DM lately, to this process or to another one."""
        return await self.memory.refused_lately(user_id)

    async def send(self, user_id: int, *, knock: bool = False, **kwargs: Any) -> bool:
        """Send a DM; False when the user does not take DMs (never retried in a loop).
        ``knock``: try even if they refused lately (they asked for it, e.g. by joining)."""
        return await self._send(user_id, knock=knock, **kwargs) is not None

    async def _send(self, user_id: int, *, knock: bool = False, **kwargs: Any
                    ) -> discord.Message | None:
        """``send``, returning the message sent (None: refused, or a passing failure)."""
        if not knock and await self.memory.refused_lately(user_id):
            return None
        try:
            message = await (await self._channel_of(user_id)).send(**kwargs)
        except discord.Forbidden:
            await self.memory.refused(user_id)
            return None
        except SENDING_FAILED:
            # not a refusal: the DM may work next time, so the user is not marked closed
            log.exception("could not send a direct message to user %d", user_id)
            return None
        await self.memory.reached(user_id)  # (the door is open again, for everyone)
        return message

    async def check(self, table: TableView, user_id: int, lang: str) -> bool:
        """On joining: say hello by DM once, so closed DMs are found before the deal (not
        again once a DM reached them, unless one was refused since). False only when the
        user refuses DMs (a passing failure is not a refusal)."""
        if table.guild_id is None or await self.memory.reached_before(user_id):
            return True  # (a game in the bot's own DM: they are in it, the hand comes there)
        await self.send(user_id, knock=True, content=t(
            "dm.check", lang, game=messages.game_name(table, lang),
            place=where(self._bot, table, lang)))
        return not self.closed(user_id)

    async def deliver_hand(self, table: TableView, seat: int,
                           obs: Observation | None = None, *, retry: bool = True,
                           reply_to: object = None, kept_after_doubt: bool = False,
                           if_showing_cards: bool = False, overtaken: bool = False) -> None:
        """Make the seat's hand message in the DMs of the account that plays it (a
        child's to its grown-up, one message per seat) show its hand as it is now
        (``obs``: the seat's view, default as it is now): the message kept for the seat is
        edited (by whichever process hears of the change: its ids are in the store), or
        else the person's hand message of a finished game is taken over (a rematch), or
        else, the first time, a DM is sent and kept. Nothing is sent when the message
        shows this hand already. If DMs are closed, the channel hears so once per game and
        seat (without the hand). ``reply_to``: the change's own request; a ``Tap`` on this
        seat's hand message is answered with the new hand instead (no DM edit), unless that
        answer fails. ``if_showing_cards``: only a message that shows the seat's cards
        already is edited (their dead marks made true), none sent. ``overtaken``: this
        process's last edit may have landed over another's later one, so the message is
        edited even if the row says it shows this hand."""
        user_id = table.seats[seat].user_id
        if user_id is None:
            return
        # (what the message shows is read, and changed, with no other change between:
        # ``hand_locks.py``, a tap's choices and the dead marks' edit)
        async with self.locks.changing(table.game_id, seat):
            await self._deliver_hand(table, seat, user_id, obs, retry=retry,
                                     reply_to=reply_to, kept_after_doubt=kept_after_doubt,
                                     if_showing_cards=if_showing_cards, overtaken=overtaken)

    async def _deliver_hand(self, table: TableView, seat: int, user_id: int,
                            obs: Observation | None, *, retry: bool, reply_to: object,
                            kept_after_doubt: bool, if_showing_cards: bool,
                            overtaken: bool) -> None:
        if isinstance(reply_to, Tap) and reply_to.seat == seat and await self._answer_tap(
                reply_to, table, obs, kept_after_doubt):
            return
        if await self.memory.refused_lately(user_id):
            await self._warn(table, seat, user_id)  # a closed door is not knocked on
            return
        lang = self._prefs.user_lang(user_id, table.guild_id)
        if obs is None:
            obs = self._manager.seat_observation(table.game_id, seat)
        shows, ply = hand_shown(obs), int(obs["history_length"])
        kept = await self.memory.kept_hand(table.game_id, seat)
        if kept is not None and kept.user_id == user_id and (
                (kept.shows == shows and not overtaken) or kept.ply > ply):
            # it shows this hand already, or a later move's (another process heard of
            # that one first: this change, heard late, must not put the older hand back)
            return
        if if_showing_cards and (kept is None or kept.user_id != user_id
                                 or not kept.shows.startswith(CARDS)):
            return
        payload = await hand_payload(self._bot, table, obs, lang)
        if kept is None or kept.user_id != user_id:
            kept = await self.memory.claim(user_id, table.game_id, seat)
        if kept is not None:
            if not await self.memory.editing(kept, ply):
                return  # another process is showing a later move's hand
            edited = await self._edit(kept, payload)
            if edited is True:
                if not await self.memory.edited(replace(kept, shows=shows, ply=ply)):
                    # a later move's edit went out meanwhile from another process, and
                    # Discord may have taken it before this one: shown again, as it is then
                    self._later(self._deliver_later(table.game_id, seat, OVERTAKEN_AFTER,
                                                    overtaken=True))
                return
            if edited is None:  # a passing failure: the edit is tried once more later
                self._later_once(table, seat, retry)
                return
            if self.closed(user_id):  # the edit was refused: DMs closed
                await self._warn(table, seat, user_id)
                return
        message = await self._send(user_id, **payload)
        if message is not None:
            await self.memory.hand_shows(DmHand(table.game_id, seat, user_id,
                                                message.channel.id, message.id, shows, ply))
            return
        if not self.closed(user_id):
            # A passing failure (rate limit, 5xx beyond discord.py's own tries): try once
            # more a little later with the hand as it is then; never a loop. The hand is
            # always there behind "My hand" and /sequence hand meanwhile.
            self._later_once(table, seat, retry)
            return
        await self._warn(table, seat, user_id)

    async def _answer_tap(self, tap: Tap, table: TableView, obs: Observation | None,
                          kept_after_doubt: bool) -> bool:
        """The tapped hand message becomes the new hand, the move on top, as the answer to
        the tap; False if that answer did not go (the hand is then edited as any other)."""
        played = t("prompt.kept" if kept_after_doubt else "prompt.played", tap.lang,
                   move=describe(tap.action, tap.lang))
        if obs is None:
            obs = self._manager.seat_observation(table.game_id, tap.seat)
        payload = await hand_payload(self._bot, table, obs, tap.lang, note=played)
        try:
            await answer_with(tap.interaction, payload)
        except SENDING_FAILED:
            log.info("could not show the new hand of game %d in place; editing it instead",
                     table.game_id, exc_info=True)
            return False
        message = tap.interaction.message
        if message is not None:
            await self.memory.hand_shows(DmHand(table.game_id, tap.seat, tap.interaction.user.id,
                                                message.channel.id, message.id,
                                                hand_shown(obs), int(obs["history_length"])))
        return True

    async def show_over(self, interaction: discord.Interaction, game_id: int, lang: str, *,
                        note: str | None = None) -> None:
        """The tapped hand message's game is over (or was never this process's to know): it
        becomes the final board, how it ended and what to do now, with no buttons left to
        act on the wrong game. A game the person plays now is named: its hand is another
        message."""
        user = interaction.user.id

        async def ending() -> dict[str, Any]:
            record = await self._manager.load_record(game_id)
            playing = next((table for table in self._manager.tables()
                            if table.status is Status.PLAYING and table.game_id != game_id
                            and table.held_seats(user)), None)
            return await over_payload(self._bot, record, lang, note=note, playing=playing)

        # (a store read and a board drawn: bounded by the tap's time left, ``answer_time``)
        await answer_with(interaction, await in_time(interaction, ending()))

    async def show_end(self, tap: Tap, game_id: int) -> None:
        """The tapped number's move was made, and the game is over (the move ended it, or
        another did before its hand could be shown): the tapped message shows the end, the
        move on top."""
        played = t("prompt.played", tap.lang, move=describe(tap.action, tap.lang))
        try:
            await self.show_over(tap.interaction, game_id, tap.lang, note=played)
        except SENDING_FAILED:
            log.info("could not show the end of game %d in place", game_id, exc_info=True)

    async def _warn(self, table: TableView, seat: int, user_id: int) -> None:
        """The channel hears once per game and seat that this seat's DMs are closed."""
        if (table.game_id, seat) in self._warned:
            return
        self._warned.put((table.game_id, seat), True)
        glang = self._prefs.table_lang(table)
        child = table.seats[seat]
        note = (t("dm.closed.child", glang, mention=f"<@{user_id}>", name=child.name)
                if child.is_child else t("dm.closed", glang, mention=f"<@{user_id}>"))
        await self._posts.post(table, content=note)

    def _later_once(self, table: TableView, seat: int, retry: bool) -> None:
        if retry:
            self._later(self._deliver_later(table.game_id, seat, RETRY_AFTER))

    async def _edit(self, kept: DmHand, payload: dict[str, Any]) -> bool | None:
        """Edit a kept hand message: True once done, False if it is gone (deleted, or DMs
        refused: a new DM decides), None on a passing failure."""
        fields = dict(payload)
        picture = fields.pop("file", None)
        fields["attachments"] = [picture] if picture is not None else []
        message = self._bot.get_partial_messageable(
            kept.dm_channel, type=discord.ChannelType.private).get_partial_message(
            kept.message_id)
        try:
            await message.edit(**fields)
        except discord.NotFound:
            log.info("the hand message %d of game %d is gone", kept.message_id, kept.game_id)
            await self.memory.hand_gone(kept)
            return False
        except discord.Forbidden:
            await self.memory.refused(kept.user_id)
            return False
        except SENDING_FAILED:
            log.exception("could not edit the hand message of game %d", kept.game_id)
            return None
        return True

    async def hand_message_is(self, game_id: int, seat: int, user_id: int,
                              message: discord.Message, shows: str) -> None:
        """``message`` is the seat's hand message now, showing ``shows`` ('' if not known):
        a click on it was answered by changing it (an interaction response; one tapped
        that was not the kept one, e.g. from before an upgrade, takes over), or recovery
        found it in the DMs of a game from before hand messages were kept."""
        await self.memory.hand_shows(DmHand(game_id, seat, user_id, message.channel.id,
                                            message.id, shows))

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _deliver_later(self, game_id: int, seat: int, after: float, *,
                             overtaken: bool = False) -> None:
        await asyncio.sleep(after)
        try:
            table = self._manager.get(game_id)
            if table.status is Status.PLAYING:
                await self.deliver_hand(table, seat, retry=False, overtaken=overtaken)
        except Refusal:
            pass  # the game ended meanwhile: no hand to show
        except StoreUnavailable:
            pass  # (the outage is said once, by the store) the next move shows the hand
        except Exception:
            log.exception("could not send the hand of game %d again", game_id)

    async def _channel_of(self, user_id: int) -> discord.abc.Messageable:
        """The DM channel of a person: opened the first time (one request, by whichever
        process DMs them first; the memory keeps it), by id after."""
        async def open_channel() -> int:
            with self._urgent(HAND_WANTED):
                return (await self._bot.create_dm(discord.Object(user_id))).id

        channel_id = await self.memory.channel(user_id, open_channel)
        return self._bot.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    async def dm_channel(self, user_id: int) -> discord.abc.Messageable | None:
        """A person's DM channel (to read what reached it), None if it cannot be opened."""
        try:
            return await self._channel_of(user_id)
        except SENDING_FAILED:
            log.warning("could not open the DM of user %d", user_id, exc_info=True)
            return None
